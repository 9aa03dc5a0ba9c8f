// Workload distribution for time and energy (the HEPOPTA paper): profiles, HPOPTA, HEPOPTA,
// HTPOPTA, the load-balanced solution and the even split, the analysis of a front and the
// brute-force reference. See docs/partition.md.
#pragma once
#include <ctrl/partition/analysis.hpp>
#include <ctrl/partition/approximate.hpp>
#include <ctrl/partition/brute_force.hpp>
#include <ctrl/partition/classes.hpp>
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/hepopta_paper.hpp>
#include <ctrl/partition/hpopta.hpp>
#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/model.hpp>
#include <ctrl/partition/pareto.hpp>
#include <ctrl/partition/pareto_dp.hpp>
#include <ctrl/partition/profile.hpp>
#include <ctrl/partition/profile_csv.hpp>
