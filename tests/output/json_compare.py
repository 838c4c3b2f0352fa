#!/usr/bin/python3
"""Reads sdpa-var's CSV, JSON and JSON Lines of the same run with Python's
csv and json modules and checks that every value agrees exactly: numbers
as the same double (both are %.17g), nan in CSV as null in JSON, words
and counts as themselves; and that the config object names every value
the rows carry.  Usage: json_compare.py CSV JSON JSONL"""
import csv
import json
import math
import sys


def same(text, value):
    if value is None:
        return text in ("nan", "inf", "-inf")
    if isinstance(value, str):
        return text == value
    if isinstance(value, int) and not isinstance(value, bool):
        return text == str(value)
    return float(text) == value


def main():
    csv_path, json_path, jsonl_path = sys.argv[1:4]
    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    with open(json_path) as f:
        doc = json.load(f)
    with open(jsonl_path) as f:
        lines = [json.loads(line) for line in f]
    bad = []
    if doc["tool"] != "sdpa-var" or not doc["version"]:
        bad.append("tool/version")
    if lines[0] != {k: doc[k] for k in ("tool", "version", "config")}:
        bad.append("jsonl first line differs from the document's header")
    if lines[1:] != doc["rows"]:
        bad.append("jsonl rows differ from the document's rows")
    if not body:
        bad.append("no rows: nothing compared")
    if len(doc["rows"]) != len(body):
        bad.append(f"{len(doc['rows'])} JSON rows, {len(body)} CSV rows")
    for i, (r, j) in enumerate(zip(body, doc["rows"])):
        if list(j.keys()) != header:
            bad.append(f"row {i}: keys differ from the CSV header")
            break
        for name, text in zip(header, r):
            if not same(text, j[name]):
                bad.append(f"row {i} {name}: CSV {text!r}, JSON {j[name]!r}")
    cfg = doc["config"]
    for name in ("dk", "n_q", "n_k", "trials", "seed", "dist", "scale", "output"):
        if name not in cfg:
            bad.append(f"config lacks {name}")
    for msg in bad[:20]:
        print("FAIL:", msg)
    print(f"{len(body)} rows x {len(header)} columns compared: {'FAIL' if bad else 'ok'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
