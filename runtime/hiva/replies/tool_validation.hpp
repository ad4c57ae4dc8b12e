// The static first gate generated tool code must pass before the sandbox
// runs it (hiva.md §7.3, §14 item 15: "a generated tool that imports os is
// rejected").
//
// It is a first gate, not a sandbox. It scans the Python tokens — comments
// and string literals are skipped, the expressions inside f-string braces
// are scanned as code — and refuses what a tool has no business doing. What
// it cannot see: names built at run time from strings (getattr(m, "o" +
// "s")), a module reached through an attribute of an allowed one that is
// not on the list, anything a library does on the tool's behalf. The
// sandbox (no file system or network, a time limit) is the real boundary;
// this gate keeps obviously unsafe code from being registered at all and
// tells the model why, in words it can act on.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::hiva {

struct ToolCodeLimits {
  size_t max_bytes = 32 * 1024;  // a 1000-token reply is about 4 KiB of code
};

// The modules a tool may not import or name, even as an attribute
// (pathlib.os): os, posix, subprocess, importlib, ctypes, socket,
// shutil, multiprocessing, pty, builtins.
const std::vector<std::string_view>& forbidden_modules();

// Error (code "tool") listing the first violations, each with its line and
// rule, e.g. "tool code: line 1: imports os (rule: forbidden module); line
// 9: uses eval (rule: no eval/exec)". The rules:
//   size             at most limits.max_bytes bytes
//   UTF-8            well-formed, no NUL byte
//   strings          every string literal terminated
//   ASCII names      no non-ASCII character outside strings and comments
//                    (Python folds Unicode names: a full-width "ｏｓ" is os)
//   forbidden module a name of forbidden_modules(), anywhere in the code
//   escape hatch     __import__, __builtins__, __subclasses__, __globals__
//                    anywhere; globals() and locals(); sys.modules
//   no eval/exec     eval and exec as names (obj.eval is a method, allowed):
//                    the gate cannot tell what string they would run
//   signature        a top-level `def tool_function(input_data ...)`; more
//                    parameters and **kwargs are allowed
Status validate_tool_source(std::string_view code, const ToolCodeLimits& limits = {});

}  // namespace kaisha::hiva
