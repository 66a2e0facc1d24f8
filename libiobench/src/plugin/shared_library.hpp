#pragma once

#include <dlfcn.h>

#include <string>
#include <utility>

namespace iobench::detail {

/// RAII dlopen handle. iobench never unloads plugins (their code may back registered factories),
/// so the handle is released on success with `leak()`; the destructor closes only failed loads.
class SharedLibrary {
 public:
  SharedLibrary() = default;
  explicit SharedLibrary(void* handle) noexcept : handle_(handle) {}
  SharedLibrary(SharedLibrary&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  SharedLibrary& operator=(SharedLibrary&&) = delete;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }

  /// dlopen(path, RTLD_NOW | RTLD_LOCAL), or RTLD_GLOBAL when `global`: its symbols then also
  /// resolve libraries loaded after it; `error` gets dlerror() on failure.
  static SharedLibrary open(const std::string& path, std::string& error, bool global = false) {
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (handle == nullptr) {
      const char* text = ::dlerror();
      error = text != nullptr ? text : "unknown dlopen error";
    }
    return SharedLibrary(handle);
  }

  [[nodiscard]] explicit operator bool() const noexcept { return handle_ != nullptr; }
  [[nodiscard]] void* symbol(const char* name) const noexcept { return ::dlsym(handle_, name); }
  /// Keeps the library loaded for the life of the process.
  void leak() noexcept { handle_ = nullptr; }

 private:
  void* handle_ = nullptr;
};

}  // namespace iobench::detail
