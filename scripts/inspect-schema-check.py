#!/usr/bin/env python3
"""Check Inspect AI logs written by `killchain export inspect` against Inspect's schema.

    scripts/inspect-schema-check.py SCHEMA LOG...

SCHEMA is inspect-openapi.json from the inspect_ai repository
(src/inspect_ai/_view/inspect-openapi.json; docs/inspect.md names the version
the export targets); each LOG is a .eval or .json log. Every member is checked
against the schema object it holds: EvalLog for header.json and a .json log,
EvalSample for samples/*.json, EvalSampleSummary for each item of
summaries.json and _journal/summaries/N.json, EvalSampleReductions for each
item of reductions.json, EvalSpec and EvalPlan for _journal/start.json. A
member of any other name is an error. Needs the jsonschema package (4.18 or
later). Exit status 1 when anything does not validate.
"""
import json
import sys
import zipfile

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    doc = json.load(open(argv[1]))
    registry = Registry().with_resource("urn:inspect", Resource.from_contents(doc, default_specification=DRAFT202012))

    def validator(name):
        return Draft202012Validator({"$ref": "urn:inspect#/components/schemas/" + name}, registry=registry)

    kinds = {k: validator(k) for k in ("EvalLog", "EvalSample", "EvalSampleSummary", "EvalSampleReductions", "EvalSpec", "EvalPlan")}
    checked = bad = 0

    def check(kind, obj, where):
        nonlocal checked, bad
        checked += 1
        errors = list(kinds[kind].iter_errors(obj))
        if errors:
            bad += 1
            for e in errors[:5]:
                print(f"{where}: {kind} at {list(e.absolute_path)}: {e.message[:300]}")

    for path in argv[2:]:
        if not path.endswith(".eval"):
            check("EvalLog", json.load(open(path)), path)
            continue
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                data = json.loads(z.read(name))
                where = f"{path}:{name}"
                if name == "header.json":
                    check("EvalLog", data, where)
                elif name.startswith("samples/"):
                    check("EvalSample", data, where)
                elif name == "summaries.json" or name.startswith("_journal/summaries/"):
                    for item in data:
                        check("EvalSampleSummary", item, where)
                elif name == "reductions.json":
                    for item in data:
                        check("EvalSampleReductions", item, where)
                elif name == "_journal/start.json":
                    check("EvalSpec", data["eval"], where)
                    check("EvalPlan", data["plan"], where)
                else:
                    bad += 1
                    print(f"{where}: a member Inspect's writer does not write")
    print(f"{checked} objects checked, {bad} invalid")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
