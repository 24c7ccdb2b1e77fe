"""A JSON document checked against one of docs/schemas/, the others there
at hand for its $refs (block.schema.json, which info's and status's
share), with python3-jsonschema's registry where it has one (4.18 and
later) and its RefResolver before that (Debian 12's 4.10).

    python3 json_schema.py SCHEMA DOCUMENT   exit 0 if DOCUMENT follows SCHEMA

or, from Python: validate(schema_path, document).
"""
import json
import os
import sys

import jsonschema


def validator(path):
    """A Draft 2020-12 validator of the schema at path."""
    folder = os.path.dirname(os.path.abspath(path))
    schemas = [json.load(open(os.path.join(folder, f)))
               for f in sorted(os.listdir(folder)) if f.endswith('.schema.json')]
    schema = json.load(open(path))
    jsonschema.Draft202012Validator.check_schema(schema)
    try:
        from referencing import Registry, Resource
    except ImportError:
        store = dict((s['$id'], s) for s in schemas if '$id' in s)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)
    registry = Registry().with_resources(
        (s['$id'], Resource.from_contents(s)) for s in schemas if '$id' in s)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def validate(path, document):
    validator(path).validate(document)


if __name__ == '__main__':
    validate(sys.argv[1], json.load(open(sys.argv[2])))
