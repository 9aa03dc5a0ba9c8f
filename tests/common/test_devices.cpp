#include "test_devices.hpp"

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

namespace ctrl {
void PrintTo(const TransferStats& s, std::ostream* os) {
  *os << "{in: " << s.bytes_in << " bytes in " << s.copies_in << " copies, out: " << s.bytes_out << " bytes in "
      << s.copies_out << " copies, peer: " << s.bytes_peer << " bytes in " << s.copies_peer << " copies}";
}
}  // namespace ctrl

namespace ctrl::test {

std::vector<std::string> split_device_list(std::string_view list) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) out.push_back(std::move(current));
    current.clear();
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (c == ';' || std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else if (c == ',') {
      const bool continues = i + 1 < list.size() && std::isdigit(static_cast<unsigned char>(list[i + 1])) &&
                             current.find(':') != std::string::npos;
      if (continues)
        current += c;
      else
        flush();
    } else {
      current += c;
    }
  }
  flush();
  return out;
}

bool kind_registered(const std::string& kind) {
  static std::mutex mutex;
  static std::map<std::string, bool> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(kind); it != known.end()) return it->second;
  bool registered = true;
  try {
    Controller probe(kind + ":0");
  } catch (const UsageError& e) {
    // The one error that means "not in this build"; any other failure says the kind exists.
    registered = std::string_view(e.what()).find("no device kind") == std::string_view::npos;
  } catch (const Error&) {
  }
  known[kind] = registered;
  return registered;
}

std::vector<std::string> device_specs_for(bool compiled_by_nvcc) {
  std::vector<std::string> specs;
  if (const char* env = std::getenv("CTRL_TEST_DEVICES"); env && *env) {
    for (std::string& s : split_device_list(env)) {
      if (!compiled_by_nvcc && parse_device(s).kind == "cuda") {
        // Generic kernels compiled by a host compiler cannot run on a GPU; the CUDA copy of the
        // per-kind tests (kinds_cuda_test) runs them.
        static std::once_flag noted;
        std::call_once(noted, [&] {
          std::cerr << "ctrl tests: CTRL_TEST_DEVICES names " << s
                    << ", left out of this program (not compiled by nvcc)\n";
        });
        continue;
      }
      specs.push_back(std::move(s));
    }
    return specs;
  }
  specs = {"cpu:0", "cpu"};
  if (kind_registered("offload")) {
    specs.emplace_back("offload:0");
    specs.emplace_back("offload");
  }
  if (compiled_by_nvcc) specs.emplace_back("cuda:0");
  return specs;
}

Opened open_controller(const std::string& spec) {
  Opened o;
  const DeviceSpec d = parse_device(spec);
  if (d.kind != "cuda") {
    o.controller = std::make_unique<Controller>(d);
    return o;
  }
  try {
    o.controller = std::make_unique<Controller>(d);
  } catch (const Error& e) {
    const std::string reason = e.what();
    o.skip_reason = reason.find("no CUDA device") == std::string::npos ? "no CUDA device: " + reason : reason;
  }
  return o;
}

bool runs_host_code(const Controller& c) { return c.spec().kind != "cuda"; }

std::string param_name(const std::string& spec) {
  std::string s;
  for (char c : spec) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

::testing::AssertionResult moved(const Controller& c, const TransferStats& separate) {
  const TransferStats expected = c.shares_host_memory() ? TransferStats{} : separate;
  const TransferStats got = c.transfers();
  if (got == expected) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os << "controller " << c.name() << " (" << (c.shares_host_memory() ? "shared" : "separate") << " memory) moved ";
  PrintTo(got, &os);
  os << ", expected ";
  PrintTo(expected, &os);
  return ::testing::AssertionFailure() << os.str();
}

void DeviceTest::SetUp() {
  Opened o = open_controller(GetParam());
  if (!o.controller) GTEST_SKIP() << o.skip_reason;
  ctl_ = std::move(o.controller);
}

void DeviceTest::TearDown() { ctl_.reset(); }

std::unique_ptr<Controller> DeviceTest::another(const ControllerOptions& options) const {
  return std::make_unique<Controller>(parse_device(GetParam()), options);
}

}  // namespace ctrl::test
