// What ranks tell each other about their processors, rounds and checks, as JSON text: a few
// hundred bytes per step, after the timed part, so clarity wins over a binary layout.
#pragma once
#include <ctrl/loop/team.hpp>
#include <ctrl/loop/workload.hpp>

#include <nlohmann/json.hpp>

namespace ctrl::loop::mpi {

nlohmann::json encode(const loop::ProcessorInfo& p);
loop::ProcessorInfo decode_processor(const nlohmann::json& j);

nlohmann::json encode(const loop::Check& c);
loop::Check decode_check(const nlohmann::json& j);

// A rank's part of a round: its processors' runs, times and energies, its wall and window.
nlohmann::json encode(const loop::RoundResult& r);
loop::RoundResult decode_round(const nlohmann::json& j);

}  // namespace ctrl::loop::mpi
