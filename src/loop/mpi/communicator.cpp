#include "mpi/communicator.hpp"

#include <ctrl/loop/process_group.hpp>

#include <ctrl/loop/selection.hpp>

#include <ctrl/detail/start_threads.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/io/files.hpp>

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

namespace ctrl::loop::mpi {

namespace {

// What the SIGTERM handler writes: prepared beforehand, since a handler may only write(2).
char term_message[512] = "ctrl: stopped by the MPI launcher (SIGTERM)\n";

extern "C" void on_launcher_term(int) {
  io::remove_temporary_files();  // a save in progress leaves nothing behind
  const ssize_t ignored = ::write(STDERR_FILENO, term_message, std::strlen(term_message));
  (void)ignored;
  ::_exit(exit_other_rank);
}

void check(int rc, const Communicator& comm, const char* call, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  comm.abort(exit_other_rank,
             fmt::format("{} failed while {}: {}", call, what, std::string(text, static_cast<std::size_t>(len))));
}

// The rank the launcher gave this process, known before MPI_Init (0 without one).
int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* s = std::getenv(v); s != nullptr) return std::max(0, std::atoi(s));
  return 0;
}

std::string no_answer(double timeout_s, const char* what) {
  return fmt::format(
      "no answer from the other ranks within {:g} s while {}: a rank is hung or its node is unreachable "
      "(--rank-timeout sets the wait); stopping the whole job",
      timeout_s, what);
}

// MPI_Init_thread and MPI_Finalize wait for every rank and have no deadline of their own: a rank
// stopped before it starts up (or before it ends) would hold the others past --rank-timeout,
// silently. While one of them runs, this guard waits beside it; should the call outlast the
// timeout, the rank ends as a timed-out collective does (the message, exit_other_rank), and the
// launcher, seeing it gone, ends the job. MPI_Abort is no use here: MPI is not (or no longer) up.
class BlockingCallGuard {
 public:
  BlockingCallGuard(double timeout_s, std::string message)
      : watcher_(ctrl::detail::start_thread<std::jthread>(
            "the watcher of an MPI start-up or shutdown",
            [timeout_s, message = std::move(message)](std::stop_token stop) {
              std::mutex m;
              std::condition_variable_any cv;
              std::unique_lock lock(m);
              (void)cv.wait_for(lock, stop, std::chrono::duration<double>(timeout_s), [] { return false; });
              if (stop.stop_requested()) return;  // the call returned in time
              std::fprintf(stderr, "%s\n", message.c_str());
              std::fflush(stderr);
              std::_Exit(exit_other_rank);  // before MPI_Init's return or after the last step: no file is half written
            })) {}
  // Stops the watcher as soon as the call has returned (jthread: request_stop, then join).
  ~BlockingCallGuard() = default;
  BlockingCallGuard(const BlockingCallGuard&) = delete;
  BlockingCallGuard& operator=(const BlockingCallGuard&) = delete;

 private:
  std::jthread watcher_;
};

int to_int(std::size_t n, const Communicator& comm, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    comm.abort(exit_other_rank, fmt::format("{}: {} items are too many for one MPI message", what, n));
  return static_cast<int>(n);
}

}  // namespace

Communicator::Communicator(double timeout_s) : timeout_s_(timeout_s) {
  // Until MPI is up, the launcher's numbers name this rank, in messages and for SIGTERM: the
  // launcher may end the job while this rank still waits in MPI_Init for one that never came.
  rank_ = launcher_rank();
  size_ = launcher_ranks();
  host_ = loop::this_host();
  prepare_term_message();
  std::signal(SIGTERM, on_launcher_term);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) {
    const BlockingCallGuard guard(timeout_s_,
                                  fmt::format("ctrl: {}: {}", who(), no_answer(timeout_s_, "starting MPI (MPI_Init)")));
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      throw DeviceError("MPI could not be initialised (MPI_Init_thread failed)");
  }
  // Errors come back as codes: a peer that vanished is reported here, with the step, not by
  // MPI's default handler.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  prepare_term_message();
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) return;
  std::optional<BlockingCallGuard> guard;
  try {
    guard.emplace(timeout_s_, fmt::format("ctrl: {}: {}", who(), no_answer(timeout_s_, "ending MPI (MPI_Finalize)")));
  } catch (const DeviceError&) {
    // No thread for the watcher (ulimit -u): a destructor cannot fail, so MPI ends unwatched.
  }
  MPI_Finalize();
}

void Communicator::prepare_term_message() const {
  std::snprintf(term_message, sizeof term_message,
                "ctrl: %s: stopped by the MPI launcher (SIGTERM): another rank failed, its node is gone, or the job "
                "was interrupted; the step in progress was not completed and nothing partial was written\n",
                who().c_str());
}

std::string Communicator::who() const { return who(rank_, host_); }
std::string Communicator::who(int rank, const std::string& host) const {
  return fmt::format("rank {} of {} ({})", rank, size_, host);
}

std::string Communicator::describe_errors(const std::vector<std::string>& errors,
                                          const std::vector<std::string>& hosts) const {
  std::string text;
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (errors[r].empty()) continue;
    const std::string rank =
        r < hosts.size() ? who(static_cast<int>(r), hosts[r]) : fmt::format("rank {} of {}", r, size_);
    text += fmt::format("{}{}: {}", text.empty() ? "" : "; ", rank, errors[r]);
  }
  return text;
}

void Communicator::abort(int code, const std::string& message) const {
  std::fprintf(stderr, "ctrl: %s: %s\n", who().c_str(), message.c_str());
  std::fflush(stderr);
  io::remove_temporary_files();  // MPI_Abort ends this process without unwinding
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; should it, the rank still ends
}

void Communicator::wait(void* request, const char* what) {
  auto* r = static_cast<MPI_Request*>(request);
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
  for (int polls = 0;; ++polls) {
    int done = 0;
    check(MPI_Test(r, &done, MPI_STATUS_IGNORE), *this, "MPI_Test", what);
    if (done != 0) return;
    if (Clock::now() > deadline) abort(exit_other_rank, no_answer(timeout_s_, what));
    // Poll hard for about a millisecond (a round's start must be tight), then gently: a rank
    // waiting for a slow one must not take a core from a processor on the same host.
    if (polls > 2000) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void Communicator::barrier(const char* what) {
  MPI_Request r;
  check(MPI_Ibarrier(MPI_COMM_WORLD, &r), *this, "MPI_Ibarrier", what);
  wait(&r, what);
}

std::vector<std::string> Communicator::allgather(const std::string& mine, const char* what) {
  int len = to_int(mine.size(), *this, what);
  std::vector<int> lens(static_cast<std::size_t>(size_));
  MPI_Request r;
  check(MPI_Iallgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD, &r), *this, "MPI_Iallgather", what);
  wait(&r, what);
  std::vector<int> offsets(lens.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    offsets[i] = to_int(total, *this, what);
    total += static_cast<std::size_t>(lens[i]);
  }
  std::string all(total, '\0');
  check(MPI_Iallgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD,
                        &r),
        *this, "MPI_Iallgatherv", what);
  wait(&r, what);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lens[i])));
  return out;
}

void Communicator::broadcast(std::string& text, const char* what) {
  int len = to_int(text.size(), *this, what);
  MPI_Request r;
  check(MPI_Ibcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD, &r), *this, "MPI_Ibcast", what);
  wait(&r, what);
  text.resize(static_cast<std::size_t>(len));
  check(MPI_Ibcast(text.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD, &r), *this, "MPI_Ibcast", what);
  wait(&r, what);
}

bool Communicator::any(bool local, const char* what) {
  int in = local ? 1 : 0, out = 0;
  MPI_Request r;
  check(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD, &r), *this, "MPI_Iallreduce", what);
  wait(&r, what);
  return out != 0;
}

std::vector<std::byte> Communicator::gather_rows(std::span<const std::byte> mine, std::size_t rows,
                                                 std::size_t row_bytes, std::vector<std::size_t>& rows_per_rank,
                                                 const char* what) {
  // Counted in rows (a contiguous type of one row): a rank's share may exceed 2^31 bytes.
  int n = to_int(rows, *this, what);
  std::vector<int> counts(static_cast<std::size_t>(size_));
  MPI_Request r;
  check(MPI_Iallgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD, &r), *this, "MPI_Iallgather", what);
  wait(&r, what);
  rows_per_rank.assign(counts.begin(), counts.end());
  std::vector<int> offsets(counts.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    offsets[i] = to_int(total, *this, what);
    total += static_cast<std::size_t>(counts[i]);
  }
  MPI_Datatype row;
  check(MPI_Type_contiguous(to_int(row_bytes, *this, what), MPI_BYTE, &row), *this, "MPI_Type_contiguous", what);
  MPI_Type_commit(&row);
  std::vector<std::byte> all(rank_ == 0 ? total * row_bytes : 0);
  check(MPI_Igatherv(mine.data(), n, row, all.data(), counts.data(), offsets.data(), row, 0, MPI_COMM_WORLD, &r), *this,
        "MPI_Igatherv", what);
  wait(&r, what);
  MPI_Type_free(&row);
  return all;
}

}  // namespace ctrl::loop::mpi
