// CSV lines as every ctrl file reads and writes them (profiles, fronts): fields separated by ',',
// quoted as in RFC 4180 ("a, b"; "" inside quotes), one record per line.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ctrl::io {

// Splits one line into `fields` (replacing them); false when a quote is left open.
bool split_csv_line(std::string_view line, std::vector<std::string>& fields);
// `text` as one field: quoted when it holds a comma, a quote or a line end.
std::string csv_field(std::string_view text);

}  // namespace ctrl::io
