// Reading profiles from CSV files.
//
// The first row is a header that names at least the columns processor, size, time and energy
// (any order, any letter case, surrounding spaces ignored); other columns are ignored. Every
// following row is one measured point: a processor name, a size (a positive integer), a time in
// seconds and a dynamic energy in joules (finite, non-negative numbers). Processors keep the
// order of their first appearance. A processor name may be a Slurm-style range,
// `node[001-125]/cuda:0`: the row is then that point of every processor it names (classes.hpp;
// at most 100,000 a row and 20 million points in all). Fields may be quoted ("a, b" and "" inside quotes as in
// RFC 4180); blank lines are skipped; CRLF line ends and a UTF-8 byte-order mark are accepted.
//
// Every error is a ctrl::UsageError whose message starts with "FILE:LINE: " (or "FILE: " when no
// line applies): a missing file, a FIFO or device instead of a file (refused, not waited on:
// ctrl/io/files.hpp), an empty or header-only file, a missing column, a ragged row, a
// non-numeric field, a negative or non-finite time or energy, a size that is not a positive
// integer, a processor measured twice at the same size (also through a range), a malformed range.
#pragma once
#include <ctrl/partition/profile.hpp>

#include <string>
#include <string_view>

namespace ctrl::partition {

Profile read_profile_csv(const std::string& path);

// The same from text already in memory; `source` names it in messages.
Profile parse_profile_csv(std::string_view text, const std::string& source);

// One field of a profile row, checked as above: a size (a positive integer) and a time or energy
// (`what`; finite, non-negative). UsageError "<where>: what is wrong" (where: "FILE:LINE").
Size parse_profile_size(const std::string& field, const std::string& where);
double parse_profile_value(const std::string& field, const char* what, const std::string& where);

}  // namespace ctrl::partition
