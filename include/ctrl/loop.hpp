// The profile -> Pareto front -> run loop (docs/loop.md): a workload divisible by rows, measured on
// every processor at once, split as the partition library's exact fronts say, run and checked.
//
//   ctrl::loop::Divisible w("poly", "y = p(x)");                  // your arrays and kernel
//   ctrl::loop::Team team({ctrl::parse_device("cpu:0-14"), ctrl::parse_device("cuda:0")});
//   ctrl::loop::run_profile(w, profile_request, team, observer);  // time and energy per size
//   auto measured = ctrl::loop::read_profile(profile_request.out);
//   auto front = ctrl::loop::model_front(ctrl::loop::profile_model(measured),
//                                        ctrl::loop::held_model(*measured.file), n);
//   auto outcome = ctrl::loop::run_distribution(w, run_request, team);
//
// examples/distribute/ is the whole program, built against the installed package.
#pragma once
#include <ctrl/ctrl.hpp>
#include <ctrl/loop/barrier.hpp>
#include <ctrl/loop/divisible.hpp>
#include <ctrl/loop/front.hpp>
#include <ctrl/loop/front_file.hpp>
#include <ctrl/loop/held.hpp>
#include <ctrl/loop/learn.hpp>
#include <ctrl/loop/machine.hpp>
#include <ctrl/loop/measure.hpp>
#include <ctrl/loop/model.hpp>
#include <ctrl/loop/pick.hpp>
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/process_group.hpp>
#include <ctrl/loop/profile.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/quantity.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/team.hpp>
#include <ctrl/loop/workload.hpp>
#include <ctrl/partition.hpp>
