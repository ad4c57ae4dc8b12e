#include "runtime/hiva/environment/test_program.hpp"

#include "runtime/core/json.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::hiva {

namespace {

// The harness; PROGRAM, TESTS and ENTRY_POINT are defined above it.
constexpr std::string_view kHarness = R"PY(import ast
import io
import json
import linecache
import os
import sys
import traceback
import unittest

LIMIT = 1500  # characters of one message or traceback kept
MAX_FAILURES = 5  # failures listed (the first with its traceback)
MAX_OUTPUT = 2000  # characters of the program's own output kept
MARK = "KAISHA_TEST "


class _Capped(io.TextIOBase):
    # The program's prints: kept up to MAX_OUTPUT characters, the rest
    # dropped, so a chatty program cannot push the report out of the
    # sandbox's output limit.
    def __init__(self):
        self.parts, self.size = [], 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        if self.size < MAX_OUTPUT:
            self.parts.append(s[: MAX_OUTPUT - self.size])
            self.size += min(len(s), MAX_OUTPUT - self.size)
        return len(s)

    def text(self):
        return "".join(self.parts)


def _cut(text):
    return text if len(text) <= LIMIT else "..." + text[-LIMIT:]


def _register(name, source):
    # So that tracebacks show the lines of the program and of the tests.
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)


def _trace(e):
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename in ("program.py", "tests.py")]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(e), e)
    return _cut("Traceback (most recent call last):\n" + "".join(lines))


def _message(e):
    text = str(e)
    return _cut(type(e).__name__ + (": " + text if text else ""))


class Report:
    def __init__(self, out):
        self.out = out
        self.passed, self.failed, self.failures, self.error = 0, 0, [], None

    def emit(self, event, **fields):
        fields["event"] = event
        self.out.write(MARK + json.dumps(fields) + "\n")
        self.out.flush()

    def fail(self, name, message, trace=None):
        self.failed += 1
        if len(self.failures) < MAX_FAILURES:
            entry = {"test": name, "message": message}
            if not self.failures and trace:
                entry["traceback"] = trace
            self.failures.append(entry)

    def run(self, name, call):
        self.emit("start", test=name)
        try:
            call()
            self.passed += 1
        except BaseException as e:  # noqa: B902 - SystemExit and the rest fail the test too
            self.fail(name, _message(e), _trace(e))


def _assert_message(node, ns, e):
    # A bare assert says nothing; for "assert f(x) == y" say what f(x) was.
    text = _message(e)
    test = node.test
    if not str(e) and isinstance(test, ast.Compare) and len(test.ops) == 1:
        try:
            left = eval(compile(ast.Expression(test.left), "tests.py", "eval"), ns)
            text += ": the left side was " + _cut(repr(left))
        except BaseException as again:  # noqa: B902
            text += ": the left side raised " + _message(again)
    return text


def _run_assert(report, node, ns, name):
    report.emit("start", test=name)
    try:
        exec(compile(ast.Module([node], []), "tests.py", "exec"), ns)
        report.passed += 1
    except AssertionError as e:
        report.fail(name, _assert_message(node, ns, e), _trace(e))
    except BaseException as e:  # noqa: B902
        report.fail(name, _message(e), _trace(e))


def _testcase_classes(ns, names):
    for n in names:
        obj = ns.get(n)
        if isinstance(obj, type) and issubclass(obj, unittest.TestCase):
            yield obj


def _run_testcase(report, case):
    name = case.id().split(".", 1)[-1]
    result = unittest.TestResult()
    report.emit("start", test=name)
    case.run(result)
    problems = result.failures + result.errors
    if not problems and not result.unexpectedSuccesses:
        report.passed += 1
        return
    if problems:
        trace = problems[0][1].strip()
        report.fail(name, _cut(trace.splitlines()[-1]), _cut(trace))
    else:
        report.fail(name, "an expected failure passed")


def main():
    out = sys.stdout
    captured = _Capped()
    sys.stdout = captured
    report = Report(out)
    try:
        _main(report)
    except BaseException as e:  # noqa: B902 - the report must still go out
        report.error = {"stage": "harness", "message": _message(e), "traceback": _trace(e)}
    result = {"passed": report.passed, "failed": report.failed, "failures": report.failures}
    if report.error:
        result["error"] = report.error
    result["output"] = captured.text()
    report.emit("result", **result)
    # Not sys.exit: threads the program left running must not keep the run alive.
    os._exit(0)


def _main(report):
    _register("program.py", PROGRAM)
    _register("tests.py", TESTS)
    ns = {"__name__": "program", "__builtins__": __builtins__}
    report.emit("start", test="(the program itself)")
    try:
        code = compile(PROGRAM, "program.py", "exec")
    except SyntaxError as e:
        report.error = {"stage": "program", "message": "SyntaxError: line %s: %s" % (e.lineno, e.msg),
                        "traceback": _cut("".join(traceback.format_exception_only(type(e), e)))}
        return
    try:
        exec(code, ns)
    except BaseException as e:  # noqa: B902
        report.error = {"stage": "program", "message": _message(e), "traceback": _trace(e)}
        return
    try:
        tree = ast.parse(TESTS, "tests.py")
    except SyntaxError as e:
        report.error = {"stage": "tests", "message": "SyntaxError: line %s: %s" % (e.lineno, e.msg),
                        "traceback": _cut("".join(traceback.format_exception_only(type(e), e))), "blame": "task"}
        return
    functions, classes = [], []
    for node in tree.body:
        name = ast.get_source_segment(TESTS, node) or type(node).__name__
        if isinstance(node, ast.Assert):
            _run_assert(report, node, ns, _cut(name.splitlines()[0]))
            continue
        try:
            exec(compile(ast.Module([node], []), "tests.py", "exec"), ns)
        except BaseException as e:  # noqa: B902
            report.error = {"stage": "tests", "message": "line %d: %s" % (node.lineno, _message(e)),
                            "traceback": _trace(e)}
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            functions.append(node.name)
        if isinstance(node, ast.ClassDef):
            classes.append(node.name)
    for name in functions:
        report.run(name + "()", ns[name])
    for cls in _testcase_classes(ns, classes):
        for case in unittest.defaultTestLoader.loadTestsFromTestCase(cls):
            _run_testcase(report, case)
    if callable(ns.get("check")) and "check" not in functions:
        if not ENTRY_POINT:
            report.error = {"stage": "tests", "blame": "task",
                            "message": "the tests define check(candidate) but the task names no entry_point"}
            return
        if ENTRY_POINT not in ns:
            report.fail("check(%s)" % ENTRY_POINT, "the program defines no %s" % ENTRY_POINT)
        else:
            report.run("check(%s)" % ENTRY_POINT, lambda: ns["check"](ns[ENTRY_POINT]))
    elif ENTRY_POINT and ENTRY_POINT not in ns:
        report.fail(ENTRY_POINT, "the program defines no %s" % ENTRY_POINT)
    if report.passed + report.failed == 0 and not report.error:
        report.error = {"stage": "tests", "blame": "task",
                        "message": "the tests hold no test: no top-level assert, no test function, "
                        "no unittest.TestCase and no check(candidate)"}


main()
)PY";

// A JSON string is a valid Python string literal when it is written as
// UTF-8 (no \uD83D-style surrogate pairs, which Python reads as two lone
// surrogates).
std::string python_literal(std::string_view text) {
  return json(utf8::repair(text)).dump(-1, ' ', /*ensure_ascii=*/false);
}

}  // namespace

std::string build_test_program(std::string_view program, std::string_view tests, std::string_view entry_point) {
  std::string out = "# Generated by kaisha: a candidate program and its unit tests (docs/suites.md).\n";
  out += "PROGRAM = " + python_literal(program) + "\n";
  out += "TESTS = " + python_literal(tests) + "\n";
  out += "ENTRY_POINT = " + python_literal(entry_point) + "\n";
  out += kHarness;
  return out;
}

}  // namespace kaisha::hiva
