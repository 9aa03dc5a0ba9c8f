// Processor classes: processors that share one profile (the same node kind and device measured
// once, or boards whose measurements are equal). A cluster of 125 nodes of 4 kinds has 1000
// abstract processors but a handful of classes; the approximate front (approximate.hpp) and the
// reports use the classes, and distributions are still one part per processor.
//
// Profile files can name a class with a Slurm-style range (profile_csv.hpp): `node[001-125]/cuda:0`
// is the 125 processors node001/cuda:0 .. node125/cuda:0, each with the row's point. Identical
// processors are found whether or not a range named them.
#pragma once
#include <ctrl/partition/profile.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ctrl::partition {

// The names a Slurm-style range stands for, in order: every `[...]` holds comma-separated numbers
// or ranges a-b (a <= b; the width of a zero-padded a is kept: [08-10] is 08, 09, 10), and several
// brackets multiply (`n[1-2]g[0-1]`: n1g0, n1g1, n2g0, n2g1). A name without brackets is itself.
// Throws ctrl::UsageError saying what is malformed (an unclosed or empty bracket, a range that
// falls, a number that is not one, more than `limit` names).
std::vector<std::string> expand_processor_range(std::string_view name, std::size_t limit = 1'000'000);

// Processors with the same points (sizes, times and energies all equal) form a class.
struct ProcessorClasses {
  std::vector<std::size_t> class_of;              // per processor: its class
  std::vector<std::vector<std::size_t>> members;  // per class: its processors, increasing; classes
                                                  // in the order of their first processor
  std::size_t count() const noexcept { return members.size(); }
};

ProcessorClasses processor_classes(const Profile& profile);

}  // namespace ctrl::partition
