// Misuse of wrapped memory that must not compile (docs/model.md, "Wrapped memory"). Compiled
// alone once per case by the wrap_misuse.* tests, which expect the error that names the misuse;
// the case "none" must compile, so that a failure of the others is the misuse and nothing else.
#include <ctrl/controller.hpp>
#include <ctrl/wrap.hpp>

#include <vector>

struct WriteAll {
  void operator()(ctrl::Thread t, ctrl::Out<float, 1> a) const { a(t.x) = 1.0F; }
};
struct ReadAll {
  void operator()(ctrl::Thread t, ctrl::Out<float, 1> b, ctrl::In<float, 1> a) const { b(t.x) = a(t.x); }
};

void misuse(ctrl::Controller& c, const std::vector<float>& v, std::vector<float>& w) {
  auto in = ctrl::wrap(v, "in");
  auto out = ctrl::wrap(w, "out");
#if defined(CASE_const_out)
  c.launch<WriteAll>(ctrl::Threads(4), in);  // const memory taken as Out
#elif defined(CASE_temporary_vector)
  auto gone = ctrl::wrap(std::vector<float>(4), "gone");  // dies at the end of the statement
#elif defined(CASE_const_host_write)
  in(0) = 1.0F;  // the host writes const memory
#else
  c.launch<ReadAll>(ctrl::Threads(4), out, in);
  c.launch<WriteAll>(ctrl::Threads(4), out);
#endif
}
