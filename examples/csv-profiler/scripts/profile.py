#!/usr/bin/env python3
"""Profile a CSV file: per-column types, missing values, ranges and top values.

Standard library only. Prints Markdown (default) or JSON.

    python3 scripts/profile.py data.csv
    python3 scripts/profile.py data.csv --format json --max-rows 100000
"""

import argparse
import csv
import json
import re
import sys
from collections import Counter

NULLS = {"", "na", "n/a", "nan", "null", "none", "-"}
BOOLS = {"true", "false", "yes", "no", "t", "f", "y", "n"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
INT = re.compile(r"^[+-]?\d+$")
TOP = 5
DISTINCT_CAP = 10000


def is_float(s):
    try:
        float(s)
    except ValueError:
        return False
    return s.lower() not in ("inf", "+inf", "-inf", "infinity", "nan")


def infer(values):
    """Return the narrowest type every non-missing value fits."""
    if not values:
        return "empty"
    if all(INT.match(v) for v in values):
        return "integer"
    if all(is_float(v) for v in values):
        return "number"
    if all(v.lower() in BOOLS for v in values):
        return "boolean"
    if all(DATE.match(v) for v in values):
        return "date"
    return "string"


def profile_column(name, raw):
    present = [v.strip() for v in raw if v.strip().lower() not in NULLS]
    kind = infer(present)
    col = {
        "name": name,
        "type": kind,
        "rows": len(raw),
        "missing": len(raw) - len(present),
    }
    counts = Counter(present)
    col["distinct"] = len(counts) if len(counts) < DISTINCT_CAP else None
    if kind in ("integer", "number"):
        nums = sorted(float(v) for v in present)
        col["min"] = nums[0]
        col["max"] = nums[-1]
        col["mean"] = sum(nums) / len(nums)
        mid = len(nums) // 2
        col["median"] = nums[mid] if len(nums) % 2 else (nums[mid - 1] + nums[mid]) / 2
        if kind == "integer":
            for k in ("min", "max"):
                col[k] = int(col[k])
    elif kind in ("date", "string") and present:
        col["min"] = min(present)
        col["max"] = max(present)
    if kind == "string" and present:
        lengths = [len(v) for v in present]
        col["min_length"] = min(lengths)
        col["max_length"] = max(lengths)
    col["top"] = [{"value": v, "count": n} for v, n in counts.most_common(TOP)]
    return col


def read(path, delimiter, encoding, max_rows):
    with open(path, newline="", encoding=encoding) as f:
        sample = f.read(64 * 1024)
        f.seek(0)
        if delimiter is None:
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = ","
        reader = csv.reader(f, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            raise ValueError("the file is empty")
        if header and header[0].startswith("\ufeff"):
            header[0] = header[0][1:]
        columns = [[] for _ in header]
        rows = ragged = 0
        truncated = False
        for row in reader:
            if not row:
                continue
            if max_rows and rows >= max_rows:
                truncated = True
                break
            rows += 1
            if len(row) != len(header):
                ragged += 1
            for i in range(len(header)):
                columns[i].append(row[i] if i < len(row) else "")
    return delimiter, header, columns, rows, ragged, truncated


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v).replace("|", "\\|")


def markdown(report):
    out = [
        f"# Profile of `{report['file']}`",
        "",
        f"- rows: {report['rows']}" + (" (truncated by --max-rows)" if report["truncated"] else ""),
        f"- columns: {len(report['columns'])}",
        f"- delimiter: `{report['delimiter']!r}`",
        f"- ragged rows: {report['ragged_rows']}",
        "",
        "| column | type | missing | distinct | min | max | mean | median |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in report["columns"]:
        out.append("| " + " | ".join(fmt(x) for x in (
            c["name"], c["type"], c["missing"], c["distinct"],
            c.get("min"), c.get("max"), c.get("mean"), c.get("median"))) + " |")
    out += ["", "## Top values", ""]
    for c in report["columns"]:
        tops = ", ".join(f"`{fmt(t['value'])}` ({t['count']})" for t in c["top"]) or "-"
        out.append(f"- **{fmt(c['name'])}**: {tops}")
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description="Profile the columns of a CSV file.")
    p.add_argument("file", help="CSV file to profile")
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("--delimiter", help="field separator (default: sniffed)")
    p.add_argument("--encoding", default="utf-8-sig", help="text encoding (default: utf-8-sig)")
    p.add_argument("--max-rows", type=int, default=0, help="stop after N data rows (0 = all)")
    args = p.parse_args(argv)
    try:
        delim, header, columns, rows, ragged, truncated = read(
            args.file, args.delimiter, args.encoding, args.max_rows)
    except UnicodeDecodeError as e:
        print(f"profile.py: {args.file}: not {args.encoding} text ({e.reason} at byte {e.start});"
              " pass --encoding, for example --encoding cp1252", file=sys.stderr)
        return 1
    except (OSError, ValueError, csv.Error) as e:
        print(f"profile.py: {args.file}: {e}", file=sys.stderr)
        return 1
    report = {
        "file": args.file,
        "rows": rows,
        "truncated": truncated,
        "delimiter": delim,
        "ragged_rows": ragged,
        "columns": [profile_column(h, col) for h, col in zip(header, columns)],
    }
    if args.format == "json":
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
