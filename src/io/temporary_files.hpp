// The temporary files of AtomicFile: their names, the registry of live ones that a signal handler
// unlinks, and the removal of those that dead processes left (files.hpp says why).
#pragma once

#include <filesystem>
#include <string>

namespace ctrl::io::detail {

// ".NAME.tmp-": every temporary of `target` starts so, followed by "PID-RANDOM". The leading dot
// hides it from globs; the PID says whose it is; the random part makes the name unpredictable.
std::string temporary_prefix(const std::filesystem::path& target);
// "PID-" and 16 hex digits from getrandom().
std::string temporary_suffix();

// Records `path` as live, for remove_temporary_files(); returns its slot, or -1 when all slots are
// taken (the file is then removed on exceptions and exits, not on signals).
int register_temporary(const std::string& path) noexcept;
void unregister_temporary(int slot) noexcept;

// Installs remove_temporary_files_and_die for every terminating signal whose disposition is still
// the default; a signal the program handles or ignores is left to the program.
void install_signal_cleanup() noexcept;

// Removes the temporaries of `target` whose process is gone (its PID answers ESRCH) and whose lock
// no one holds (a live writer holds an flock on its temporary). Best effort: errors are ignored.
void remove_stale_temporaries(const std::filesystem::path& target) noexcept;

}  // namespace ctrl::io::detail
