# Validates generated Python tools inside the kaisha sandbox, the way
# HASHIRU's ToolManager loads them: import the module, take the class named
# by __all__[0], instantiate it, read its inputSchema.
#
# Protocol: one JSON object on stdin:
#   {"tools": [{"code": "<source>", "filename": "<name>.py", "module": "<name>"}, ...]}
# Exactly one JSON line on stdout, one result per tool, in order:
#   {"results": [{"ok": true, "entry_class": "...", "spec": {"name", "description", "parameters"},
#                 "costs": {...}, "dependencies": [...]},
#                {"ok": false, "error": "<loader error>", "type": "<exception class>"}, ...]}
# Anything a tool prints while loading goes to stderr.
import importlib.util
import json
import re
import sys
import traceback
import types

COST_KEYS = ("create_cost", "invoke_cost", "create_resource_cost", "invoke_resource_cost",
             "create_expense_cost", "invoke_expense_cost")


def fail(message):
    raise ValueError(message)


def validate(tool):
    name = tool["module"]
    module = types.ModuleType(name)
    module.__file__ = tool["filename"]
    exec(compile(tool["code"], tool["filename"], "exec"), module.__dict__)
    class_name = module.__all__[0]
    cls = getattr(module, class_name)
    instance = cls()
    schema = instance.inputSchema
    if not isinstance(schema, dict):
        fail("inputSchema must be a dict with name, description and parameters")
    for key, kind in (("name", str), ("description", str), ("parameters", dict)):
        if not isinstance(schema.get(key), kind):
            fail("inputSchema['%s'] must be a %s" % (key, kind.__name__))
    params = schema["parameters"]
    if params.get("type") != "object" or not isinstance(params.get("properties", {}), dict):
        fail("inputSchema['parameters'] must be a JSON Schema object: "
             "{'type': 'object', 'properties': {...}, 'required': [...]}")
    if not callable(getattr(instance, "run", None)):
        fail("class %s has no run(self, **kwargs) method" % class_name)
    deps = getattr(instance, "dependencies", [])
    if not isinstance(deps, (list, tuple)):
        fail("dependencies must be a list of module names")
    for dep in deps:
        base = re.split(r"[=<>!~\[ ;]", str(dep), maxsplit=1)[0].strip()
        if base and importlib.util.find_spec(base) is None:
            raise ModuleNotFoundError("dependency '%s' is not installed; kaisha installs no packages, "
                                      "use the Python standard library" % dep)
    costs = {k: schema[k] for k in COST_KEYS if isinstance(schema.get(k), (int, float))}
    spec = {"name": schema["name"], "description": schema["description"], "parameters": params}
    json.dumps(spec)  # must travel as JSON
    return {"ok": True, "entry_class": class_name, "spec": spec, "costs": costs,
            "dependencies": [str(d) for d in deps]}


def main():
    out = sys.stdout
    sys.stdout = sys.stderr
    results = []
    try:
        req = json.loads(sys.stdin.read())
        for tool in req["tools"]:
            try:
                results.append(validate(tool))
            except BaseException as e:  # noqa: B902 - every loader failure is data
                traceback.print_exc(file=sys.stderr)
                results.append({"ok": False, "error": str(e) or repr(e), "type": type(e).__name__})
    except BaseException as e:  # noqa: B902
        results = {"error": str(e), "type": type(e).__name__}
    out.write(json.dumps({"results": results}) + "\n")
    out.flush()


main()
