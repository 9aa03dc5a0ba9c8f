// One thread per controller, all at once, as Team::run does (without Team's refusal of
// overlapping cores, so that three controllers fit on a two-core machine).
#pragma once
#include <ctrl/loop/workload.hpp>

#include <exception>
#include <memory>
#include <thread>
#include <vector>

namespace ctrl::loop::testing {

inline void run_together(Problem& p, std::vector<std::unique_ptr<Controller>>& ctls, const std::vector<Block>& blocks,
                         bool together = true) {
  p.prepare_round(blocks, together);
  std::vector<std::exception_ptr> errors(ctls.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < ctls.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          p.run_block(*ctls[i], blocks[i], i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ctrl::loop::testing
