// What ranks tell each other about their processors, rounds and checks, as JSON text: a few
// hundred bytes per step, after the timed part, so clarity wins over a binary layout.
#pragma once
#include "workloads/team.hpp"
#include "workloads/workload.hpp"

#include <nlohmann/json.hpp>

namespace ctrl::distributed {

nlohmann::json encode(const workloads::ProcessorInfo& p);
workloads::ProcessorInfo decode_processor(const nlohmann::json& j);

nlohmann::json encode(const workloads::Check& c);
workloads::Check decode_check(const nlohmann::json& j);

// A rank's part of a round: its processors' runs, times and energies, its wall and window.
nlohmann::json encode(const workloads::RoundResult& r);
workloads::RoundResult decode_round(const nlohmann::json& j);

}  // namespace ctrl::distributed
