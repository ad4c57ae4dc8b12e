# Runs one generated Python tool inside the kaisha sandbox.
#
# Protocol: one JSON object on stdin:
#   {"code": "<module source>", "filename": "<name for tracebacks>",
#    "entry_class": "<class name>", "args": {...}}
# The module is executed, the class instantiated with no arguments and
# run(**args) called. Exactly one JSON line is written to stdout:
#   {"ok": true, "result": <JSON value>}
#   {"ok": false, "error": "<what went wrong>", "type": "<exception class>"}
# Anything the tool prints goes to stderr so it cannot corrupt that line.
import json
import sys
import traceback
import types


def main():
    out = sys.stdout
    sys.stdout = sys.stderr
    try:
        req = json.loads(sys.stdin.read())
        name = req.get("filename") or "tool.py"
        module = types.ModuleType("kaisha_tool")
        module.__file__ = name
        exec(compile(req["code"], name, "exec"), module.__dict__)
        cls = getattr(module, req["entry_class"], None)
        if cls is None:
            raise LookupError("module %s has no class %r" % (name, req["entry_class"]))
        args = req.get("args") or {}
        if not isinstance(args, dict):
            raise TypeError("args must be a JSON object, got %s" % type(args).__name__)
        result = cls().run(**args)
        line = json.dumps({"ok": True, "result": result})
    except BaseException as e:  # noqa: B902 - report every failure as data
        traceback.print_exc(file=sys.stderr)
        line = json.dumps({"ok": False, "error": str(e) or repr(e), "type": type(e).__name__})
    out.write(line + "\n")
    out.flush()


main()
