// What PyPI serves a Mac and what its MPS needs, by torch release (each row's source in
// mac_wheels.cpp): the doctor's macOS rules and setup's macOS plans ask the same table.
#pragma once
#include <optional>
#include <string>

namespace dlready {

// The macOS torch's MPS gate needs (12.3, 13.0 or 14.0) for a release or version ("2.8.0").
[[nodiscard]] std::string mps_needs_macos(const std::string& torch);

// Does PyPI have a torch wheel of `release` ("2.11") for this Mac: its CPU (arm64, x86_64), its
// macOS ("13.6"), its Python ("3.12")? nullopt when it has, else why not (one clause).
[[nodiscard]] std::optional<std::string> mac_wheel_misfit(const std::string& release, const std::string& cpu, const std::string& macos,
                                           const std::string& python);

// The newest release PyPI serves this Mac, if any (and, when `with_mps`, whose MPS works on this macOS).
[[nodiscard]] std::optional<std::string> newest_mac_release(const std::string& cpu, const std::string& macos,
                                                            const std::string& python, bool with_mps);

}  // namespace dlready
