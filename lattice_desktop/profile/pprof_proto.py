"""The message classes of pprof's profile.proto (package perftools.profiles), built at run
time from the schema below with the protobuf library's descriptors: nothing generated is
kept, so there is nothing to regenerate. The fields and numbers are those of
github.com/google/pprof/proto/profile.proto."""

from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PACKAGE = "perftools.profiles"

# message -> (field, number, type, repeated); a type in capitals is a message of this file.
SCHEMA: dict[str, tuple[tuple[str, int, str, bool], ...]] = {
    "Profile": (
        ("sample_type", 1, "ValueType", True),
        ("sample", 2, "Sample", True),
        ("mapping", 3, "Mapping", True),
        ("location", 4, "Location", True),
        ("function", 5, "Function", True),
        ("string_table", 6, "string", True),
        ("drop_frames", 7, "int64", False),
        ("keep_frames", 8, "int64", False),
        ("time_nanos", 9, "int64", False),
        ("duration_nanos", 10, "int64", False),
        ("period_type", 11, "ValueType", False),
        ("period", 12, "int64", False),
        ("comment", 13, "int64", True),
        ("default_sample_type", 14, "int64", False),
    ),
    "ValueType": (("type", 1, "int64", False), ("unit", 2, "int64", False)),
    "Sample": (
        ("location_id", 1, "uint64", True),
        ("value", 2, "int64", True),
        ("label", 3, "Label", True),
    ),
    "Label": (
        ("key", 1, "int64", False),
        ("str", 2, "int64", False),
        ("num", 3, "int64", False),
        ("num_unit", 4, "int64", False),
    ),
    "Mapping": (
        ("id", 1, "uint64", False),
        ("memory_start", 2, "uint64", False),
        ("memory_limit", 3, "uint64", False),
        ("file_offset", 4, "uint64", False),
        ("filename", 5, "int64", False),
        ("build_id", 6, "int64", False),
        ("has_functions", 7, "bool", False),
        ("has_filenames", 8, "bool", False),
        ("has_line_numbers", 9, "bool", False),
        ("has_inline_frames", 10, "bool", False),
    ),
    "Location": (
        ("id", 1, "uint64", False),
        ("mapping_id", 2, "uint64", False),
        ("address", 3, "uint64", False),
        ("line", 4, "Line", True),
        ("is_folded", 5, "bool", False),
    ),
    "Line": (("function_id", 1, "uint64", False), ("line", 2, "int64", False), ("column", 3, "int64", False)),
    "Function": (
        ("id", 1, "uint64", False),
        ("name", 2, "int64", False),
        ("system_name", 3, "int64", False),
        ("filename", 4, "int64", False),
        ("start_line", 5, "int64", False),
    ),
}

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "int64": _F.TYPE_INT64,
    "uint64": _F.TYPE_UINT64,
    "bool": _F.TYPE_BOOL,
    "string": _F.TYPE_STRING,
}


@cache
def message_classes() -> dict[str, Any]:
    """Each message of the schema as a protobuf class, in a pool of its own."""
    file = descriptor_pb2.FileDescriptorProto(name="profile.proto", package=PACKAGE, syntax="proto3")
    for name, fields in SCHEMA.items():
        message = file.message_type.add(name=name)
        for field, number, kind, repeated in fields:
            spec = message.field.add(name=field, number=number)
            spec.label = _F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL
            if kind in _SCALARS:
                spec.type = _SCALARS[kind]
            else:
                spec.type = _F.TYPE_MESSAGE
                spec.type_name = f".{PACKAGE}.{kind}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))
        for name in SCHEMA
    }
