# Runs one HiVA agent tool inside the kaisha sandbox (hiva.md §7.3, §9):
# Python source defining tool_function(input_data, **kwargs).
#
# Protocol: one JSON object on stdin:
#   {"mode": "run" | "validate", "code": "<module source>", "input": "<text>",
#    "max_result_bytes": <int>, "forbidden_modules": ["os", ...]}
# Both modes execute the module and check that tool_function exists, is
# callable and accepts one positional argument; "run" then calls
# tool_function(input). Code that imports a forbidden module (import, from
# ... import, __import__ or importlib.import_module with a literal name) is
# refused before any of it runs. Exactly one JSON line is written to the reply stream
# (the original stdout), after a newline:
#   {"ok": true, "result": <JSON value, or str(result)>, "truncated": <bool>,
#    "signature": "<tool_function's signature>"}
#   {"ok": false, "error": "<ExcType>: <message>", "type": "<ExcType>",
#    "traceback": "<the tool's frames only>"}
# File descriptor 1 is pointed at stderr before the tool loads, so nothing the
# tool prints (print, os.write(1, ...), child processes) can corrupt the reply.
import ast
import inspect
import json
import linecache
import os
import sys
import traceback
import types

FILENAME = "hiva_tool.py"
MAX_TRACEBACK_CHARS = 8000


def take_stdout():
    # The reply goes to a private copy of fd 1; fd 1 itself becomes stderr.
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(reply_fd, "wb")


def write_reply(stream, obj):
    line = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    # surrogatepass: a lone surrogate in the tool's text travels as bytes the
    # host replaces with U+FFFD instead of failing the whole reply.
    stream.write(b"\n" + line.encode("utf-8", "surrogatepass") + b"\n")
    stream.flush()


class ForbiddenImport(Exception):
    pass


def imported_modules(tree):
    # (line, top-level module name) of every import the code states literally.
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.split(".")[0]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("__import__", "import_module"):
                yield node.lineno, node.args[0].value.split(".")[0]


def check_imports(code, forbidden):
    if not forbidden:
        return
    for line, name in sorted(imported_modules(ast.parse(code, FILENAME))):
        if name in forbidden:
            raise ForbiddenImport("line %d imports %s; HiVA tools may not use %s"
                                  % (line, name, ", ".join(sorted(forbidden))))


def load(code, forbidden=()):
    # Registered so that tracebacks show the tool's source lines.
    linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
    module = types.ModuleType("hiva_tool")
    module.__file__ = FILENAME
    compiled = compile(code, FILENAME, "exec")
    check_imports(code, set(forbidden))
    exec(compiled, module.__dict__)
    fn = module.__dict__.get("tool_function")
    if fn is None:
        raise NameError("the code defines no tool_function; expected def tool_function(input_data, **kwargs)")
    if not callable(fn):
        raise TypeError("tool_function is a %s, not a function" % type(fn).__name__)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn, "(...)"  # a callable without a readable signature: the call decides
    try:
        signature.bind("input_data")
    except TypeError as e:
        raise TypeError("tool_function%s cannot be called with one positional argument (input_data): %s"
                        % (signature, e)) from None
    return fn, str(signature)


def as_result(value, max_bytes):
    # A str stays a str; a JSON value stays JSON; anything else becomes str(value).
    if not isinstance(value, str):
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            value = str(value)
    if isinstance(value, str):
        text = value
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return value, False
    # Cut at a code-point boundary: a partial sequence at the end is dropped.
    return data[:max_bytes].decode("utf-8", "ignore"), True


def failure(e):
    # Only the tool's own frames: the runner's are noise to whoever fixes the tool.
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != FILENAME:
        tb = tb.tb_next
    if tb is None:
        text = "".join(traceback.format_exception_only(type(e), e))
    else:
        text = "".join(traceback.format_exception(type(e), e, tb))
    if len(text) > MAX_TRACEBACK_CHARS:
        text = "..." + text[-MAX_TRACEBACK_CHARS:]
    try:
        message = str(e) or repr(e)
    except BaseException:  # noqa: B902 - an exception whose __str__ fails
        message = "(unprintable %s)" % type(e).__name__
    return {"ok": False, "error": "%s: %s" % (type(e).__name__, message), "type": type(e).__name__,
            "traceback": text}


def main():
    reply = take_stdout()
    try:
        req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        fn, signature = load(req["code"], req.get("forbidden_modules") or ())
        out = {"ok": True, "signature": signature, "result": None, "truncated": False}
        if req.get("mode") == "run":
            value = fn(req.get("input", ""))
            out["result"], out["truncated"] = as_result(value, int(req.get("max_result_bytes", 1 << 20)))
    except BaseException as e:  # noqa: B902 - every failure of the tool is data
        out = failure(e)
    write_reply(reply, out)


main()
