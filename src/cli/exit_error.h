// A failure the user can act on, as every command and the window report it: one line on stderr
// and the process's exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace mp {

// Printed as one line, exit with `code` (2 bad input or environment, 3 needs a GPU); an empty
// one is not printed (an MPI rank ending as rank 0, which said why).
class ExitError : public std::runtime_error {
 public:
  ExitError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

}  // namespace mp
