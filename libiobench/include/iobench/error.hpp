#pragma once

#include <stdexcept>
#include <string>

namespace iobench {

/// Base of every error the library throws. `what()` is one complete sentence for the user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input: an option, a workload parameter, a suite file, a loadfile, a size. The message names
/// the field, the value and the fix. The runner raises these before any I/O; `iobench` exits 2.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A shared-object plugin could not be loaded or registered. The message names the path and which
/// step failed (no file, no entry point, ABI mismatch, registration threw). `iobench` exits 2.
class PluginError : public Error {
 public:
  using Error::Error;
};

/// A stop request (iobench::request_stop(), a stop signal, the run's stop token) cut a long
/// set-up short before any I/O: a workload factory parsing a big loadfile throws it when
/// WorkloadSetup::stop_requested() turns true. Neither bad input nor a failure: the runner plans
/// no step, Runner::run() ends the run as kInterrupted with none (across ranks on every rank),
/// and `iobench` exits 130. Thrown without a stop request it is the step's validation error.
class InterruptedError : public Error {
 public:
  using Error::Error;
};

/// An I/O system call failed during a run (ENOSPC, EIO, EACCES...). Carries errno; the message has
/// the call, the path and strerror text. The runner ends the step as failed and reports what was
/// completed; `iobench` exits 1.
class IoError : public Error {
 public:
  /// REQUIRES: err is the errno value of the failed call.
  IoError(int err, const std::string& what_call, const std::string& path);
  /// The errno value of the failed call.
  [[nodiscard]] int error_number() const noexcept { return errno_; }

 private:
  int errno_;
};

}  // namespace iobench
