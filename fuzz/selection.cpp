// The device-selection file of MPI jobs (`--selection FILE`): parse_selection (read_selection
// only reads the file into a string first).
// Oracle: malformed text throws UsageError and nothing else; a selection that parses is written
// as `ctrl devices --write-selection` writes it (Selection::text) and reads back the same.
#include "input_file.hpp"

#include <ctrl/loop/selection.hpp>

#include <ctrl/errors.hpp>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace wl = ctrl::loop;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  wl::Selection sel;
  try {
    sel = wl::parse_selection(text, "fuzz.sel");
  } catch (const ctrl::UsageError&) {
    return 0;
  }
  const wl::Selection back = wl::parse_selection(sel.text(), "written.sel");
  if (back.lines.size() != sel.lines.size()) ctrl::fuzz::fail("written selection has another number of lines");
  for (std::size_t i = 0; i < sel.lines.size(); ++i) {
    const wl::SelectionLine &a = sel.lines[i], &b = back.lines[i];
    if (a.who != b.who || a.rank != b.rank || a.host != b.host || a.devices != b.devices)
      ctrl::fuzz::fail("selection line " + std::to_string(i) + " reads back differently");
  }
  return 0;
}
