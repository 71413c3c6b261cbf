"""`wiremap` command line: generate, check, formats, render, translate, convert, serve."""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["main"]


def _repo_default(name: str) -> str:
    return name


#: The exit status of a command stopped by Ctrl-C (SIGINT), as shells report it (128 + 2).
INTERRUPTED = 130


def main(argv: list[str] | None = None) -> int:
    """Run one command; Ctrl-C ends any of them with status 130 and a one-line message, never a
    traceback (`convert` keeps its checkpoint: the same command with --resume continues)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return INTERRUPTED


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wiremap", description="LLM wire formats as mapping tables.")
    from wiremap import __version__

    parser.add_argument("--version", action="version", version=f"wiremap {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (
        ("generate", "regenerate converters, wire types and fixture tests from mapping files"),
        ("check", "fail (exit 1) with a diff when the generated tree is out of date"),
    ):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--mappings", default="mappings", help="folder of mapping files (default: mappings)")
        p.add_argument("--out", default="generated", help="folder of generated code (default: generated)")
    p = sub.add_parser("render", help="render a canonical request (JSON file or -) as a format's wire body")
    p.add_argument("--format", required=True, dest="format_key", help="format key, e.g. openai_chat")
    p.add_argument("file", nargs="?", default="-", help="canonical request JSON (default: stdin)")
    p = sub.add_parser("translate", help="translate one request or response body (JSON) between formats; headers to send beside it and the loss report go to stderr")
    p.add_argument("--from", required=True, dest="source", help="source format key")
    p.add_argument("--to", required=True, dest="target", help="target format key")
    p.add_argument("--what", choices=["request", "response", "error"], default="request", help="what the body is (default: request)")
    p.add_argument("--status", type=int, default=None, help="with --what error: the HTTP status of the error body")
    p.add_argument("--strict", action="store_true", help="fail (exit 1) when anything would be lost")
    p.add_argument("--keep-extras", action="store_true", default=None, help="forward source wire fields the canonical model does not declare")
    p.add_argument("file", nargs="?", default="-", help="JSON body (default: stdin)")
    p = sub.add_parser("convert", help="translate a dataset (JSONL, Parquet) record by record (constant memory, resumable)")
    p.add_argument("--from", required=True, dest="source", help="source format key")
    p.add_argument("--to", required=True, dest="target", help="target format key")
    p.add_argument(
        "--what", choices=["request", "response", "conversation"], default="request",
        help="what each record is (default: request); conversation: a fine-tuning or eval record, "
        "messages with the final assistant turn, no model needed",
    )
    p.add_argument("--model", default=None, help="the model of records that carry none")
    p.add_argument("-o", "--output", required=True, help="output file (one record per translated input record)")
    p.add_argument("--rejects", default=None, help="reject records JSONL (default: OUTPUT.rejects.jsonl)")
    p.add_argument("--input-format", choices=["jsonl", "parquet"], default=None, help="default: parquet for .parquet/.pq or a folder (a Hugging Face dataset), else jsonl")
    p.add_argument("--output-format", choices=["jsonl", "parquet"], default=None, help="default: parquet for .parquet/.pq, else jsonl")
    p.add_argument("--field", default=None, help="the column holding each record (or its messages) in a Parquet input; the output column's name")
    p.add_argument("--engine", choices=["local", "dask"], default="local", help="local processes, or a Dask cluster (default: local)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="with --engine dask: a running scheduler (default: a local cluster of --jobs workers)")
    p.add_argument("--batch-size", type=int, default=256, help="records per batch (and per Dask task; default: 256)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default: 1)")
    p.add_argument("--strict", action="store_true", help="reject a line when anything would be lost")
    p.add_argument("--keep-extras", action="store_true", default=None, help="forward source wire fields the canonical model does not declare")
    p.add_argument("--resume", action="store_true", help="go on from the last checkpoint of an interrupted run")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("input", help="input: JSONL (- for stdin), a Parquet file, or a dataset folder")
    p = sub.add_parser("serve", help="run the translating gateway: clients speak --inbound, the upstream speaks --upstream")
    p.add_argument("--config", default=None, metavar="FILE", help="upstreams, routes by model, fallbacks, retries and extras policy from a YAML/TOML file (instead of --inbound/--upstream...)")
    p.add_argument("--inbound", default=None, help="the format clients speak, e.g. openai_chat")
    p.add_argument("--upstream", default=None, help="the format of the upstream, e.g. anthropic_messages")
    p.add_argument("--upstream-url", default=None, help="the upstream base URL (default: the upstream table's base_url)")
    p.add_argument("--upstream-api-key-env", default=None, help="use the key in this env variable instead of forwarding the client's")
    p.add_argument("--model-map", action="append", default=[], metavar="FROM=TO", help="rename a client model for the upstream (repeatable)")
    p.add_argument("--strict", action="store_true", help="refuse requests that would lose anything")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (default: 1)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds an upstream call may take in total (default: 600)")
    p.add_argument("--max-in-flight", type=int, default=128, help="concurrent upstream requests per worker; past it clients get 429 with retry-after (default: 128)")
    p.add_argument("--max-body", type=_size, default=32 * 1024 * 1024, metavar="BYTES", help="largest request body, e.g. 32M (default: 32M); larger ones get 413")
    p.add_argument("--access-log", action=argparse.BooleanOptionalAction, default=True, help="uvicorn's access log, query strings redacted, and the JSON line per request of the wiremap.gateway.access logger (default: on)")
    p.add_argument("--graceful-timeout", type=float, default=30.0, help="on SIGTERM, seconds to let requests in flight finish before they are cut (default: 30)")
    p = sub.add_parser("tools", help="print the tools of an MCP server or an OpenAPI document as a format's wire tools (wiremap.tools)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--mcp", metavar="URL|COMMAND", help="an MCP server: an http(s) URL (streamable HTTP) or a command line (stdio)")
    src.add_argument("--openapi", metavar="FILE", help="an OpenAPI 3.x document (.json, .yaml)")
    p.add_argument("--to", required=True, dest="target", help="the format to print the tools for, e.g. anthropic_messages")
    p.add_argument("--allow", action="append", default=None, metavar="NAME", help="with --mcp: keep this tool (repeatable; Prompty allowedTools)")
    p.add_argument("--operation", action="append", default=None, metavar="ID", help="with --openapi: keep this operationId or 'GET /path' (repeatable)")
    p.add_argument("--bind", action="append", default=[], metavar="TOOL.PARAM=JSON", help="bind a parameter: removed from the schema the model sees (repeatable)")
    p.add_argument("--strict", action="store_true", help="strict mode: strict: true and closed object schemas")
    p = sub.add_parser("formats", help="list the registered formats")
    p.add_argument("--mappings", default=None, help="list the formats a mappings folder declares instead")
    args = parser.parse_args(argv)

    if args.command == "formats":
        if args.mappings:
            from wiremap.codegen import MappingError
            from wiremap.codegen.load.resolve import discover

            try:
                keys = sorted(discover(args.mappings))
            except MappingError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
        else:
            import wiremap

            keys = wiremap.formats()
        for key in keys:
            print(key)
        return 0

    if args.command == "render":
        return _render(args.format_key, args.file)
    if args.command == "translate":
        return _translate(args)
    if args.command == "convert":
        return _convert(args)
    if args.command == "serve":
        return _serve(args)
    if args.command == "tools":
        return _tools(args)

    try:
        from wiremap.codegen import MappingError, generate
    except ImportError as exc:
        print(
            f"error: the generator needs its extra packages ({exc.name} is missing): pip install 'wiremap[codegen]'",
            file=sys.stderr,
        )
        return 2

    try:
        files = generate(args.mappings)
    except MappingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return _write_or_check(args.command, files, args.mappings, args.out)
    except OSError as exc:
        print(f"error: {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2


def _write_or_check(command: str, files: dict[str, str], mappings: str, out: str) -> int:
    from wiremap.codegen import check, write
    from wiremap.codegen.emit.fixtures import fixture_test_count

    if command == "generate":
        changed = write(files, out)
        print(f"generated {len(files)} files in {out}/ from {mappings}/ ({len(changed)} changed)")
        for rel in sorted(files):
            if rel.startswith("test_") and rel.endswith(".py"):
                module = rel[len("test_") :]
                tests = fixture_test_count(files[rel])
                print(f"  {os.path.join(out, module):<55} {tests:>4} fixture tests in {rel}")
        for rel in changed:
            print(f"  changed: {os.path.join(out, rel)}")
        return 0
    diffs = check(files, out)
    if diffs:
        sys.stdout.write("".join(diffs))
        print(
            f"\n{out}/ is out of date with {mappings}/ ({len(diffs)} files). "
            f"Run: wiremap generate --mappings {mappings} --out {out}",
            file=sys.stderr,
        )
        return 1
    print(f"{out}/ is up to date ({len(files)} files)")
    return 0


def _tools(args: argparse.Namespace) -> int:
    import json
    import shlex

    import wiremap

    try:
        from wiremap import tools
    except ImportError as exc:  # pragma: no cover - the module itself imports only wiremap
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        wiremap.get_format(args.target)
        if args.mcp is not None:
            if args.operation:
                raise tools.ToolError("--operation is for --openapi", where="--operation")
            server = args.mcp if args.mcp.startswith(("http://", "https://")) else shlex.split(args.mcp)
            try:
                projection = tools.from_mcp_sync(server, args.allow)
            except ImportError as exc:
                print(f"error: MCP needs the mcp SDK ({exc.name} is missing): pip install 'wiremap[tools]'", file=sys.stderr)
                return 2
        else:
            if args.allow:
                raise tools.ToolError("--allow is for --mcp", where="--allow")
            projection = tools.from_openapi(args.openapi, args.operation)
        for item in args.bind:
            target, sep, value = item.partition("=")
            name, dot, param = target.rpartition(".")
            if not sep or not dot or not name:
                raise tools.ToolError("write TOOL.PARAM=JSON", where=f"--bind {item}")
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = value  # a bare string
            projection.bind(name, **{param: parsed})
        if args.strict:
            projection.strict()
        fields, losses, wire_map = tools.to_wire(projection, args.target)
    except wiremap.UnknownFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except tools.ToolError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(fields, indent=2, ensure_ascii=False))
    for projected, original in projection.names.items():
        print(f"name: {projected} <- {original}", file=sys.stderr)
    for name, why in projection.skipped.items():
        print(f"skipped: {name}: {why}", file=sys.stderr)
    for loss in losses:
        print(f"loss: {loss}", file=sys.stderr)
    return 0


def _render(key: str, file: str) -> int:
    import json

    import wiremap

    try:
        fmt = wiremap.get_format(key)
    except wiremap.UnknownFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        text = sys.stdin.read() if file == "-" else open(file, encoding="utf-8").read()
        request = json.loads(text)
    except (OSError, ValueError) as exc:
        print(f"error: cannot read a JSON request from {file}: {exc}", file=sys.stderr)
        return 2
    try:
        body = fmt.request_to_wire(request)
    except wiremap.ProviderError as exc:
        print(f"error: {exc.category}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(body, indent=2, ensure_ascii=False))
    return 0


def _translate(args: argparse.Namespace) -> int:
    import json

    import wiremap

    try:
        text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        if args.what == "error":
            if args.status is None:
                print("error: --what error needs --status (the HTTP status of the error)", file=sys.stderr)
                return 2
            t = wiremap.translate_error(args.status, text, None, args.source, args.target)
            status, body, error_headers = t.result
            result: object = {"status": status, "body": body}
            # the target's error headers (retry-after, ...); the content type is the body's, JSON
            headers = {k: v for k, v in (error_headers or {}).items() if k.lower() != "content-type"}
        else:
            try:
                body = json.loads(text)
            except ValueError as exc:
                print(f"error: {args.file} is not JSON: {exc}", file=sys.stderr)
                return 2
            from wiremap.convert import translate_body

            t = translate_body(body, args.source, args.target, args.what, strict=args.strict, keep_extras=args.keep_extras)
            result = t.result
            # the request headers the target reads beside the body (its header options:
            # Anthropic `anthropic-beta` from Bedrock's anthropic_beta list)
            headers = dict(getattr(t, "headers", None) or {})
    except wiremap.UnknownFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except wiremap.ProviderError as exc:
        print(f"error: {exc.category}: {exc}", file=sys.stderr)
        for loss in getattr(exc, "losses", []):
            print(f"  {loss.kind}: {loss.path}: {loss.detail}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2, ensure_ascii=False))
    for name, value in headers.items():  # not part of the body: send them beside it
        print(f"header: {name}: {value}", file=sys.stderr)
    for loss in t.losses:
        print(f"{loss.kind}: {loss.path}: {loss.detail}", file=sys.stderr)
    return 0


def _convert(args: argparse.Namespace) -> int:
    import wiremap
    from wiremap.convert import ResumeMismatchError, convert_file
    from wiremap.datasets import DatasetFormatError

    if args.jobs < 1 or args.batch_size < 1:
        print("error: --jobs and --batch-size must be at least 1", file=sys.stderr)
        return 2
    if args.scheduler is not None and args.engine != "dask":
        print("error: --scheduler needs --engine dask", file=sys.stderr)
        return 2
    try:
        summary = convert_file(
            args.source, args.target, args.input, args.output,
            rejects_path=args.rejects, what=args.what, jobs=args.jobs, strict=args.strict,
            keep_extras=args.keep_extras, resume=args.resume, progress=args.progress,
            model=args.model, engine=args.engine, scheduler=args.scheduler, batch_size=args.batch_size,
            input_format=args.input_format, output_format=args.output_format, field=args.field,
        )
    except KeyboardInterrupt:
        checkpoint = args.output + ".checkpoint"
        if os.path.exists(checkpoint):
            how = f"the checkpoint {checkpoint} is kept: run the same command with --resume to continue"
        else:
            how = "no batch was complete yet: run the same command again (with or without --resume)"
        print(f"\ninterrupted; {how}", file=sys.stderr)
        return INTERRUPTED
    except (ResumeMismatchError, DatasetFormatError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # an option convert_file refuses (a Parquet stdin, a missing engine)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except wiremap.UnknownFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.filename or args.input}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(summary.text(), file=sys.stderr)
    return 0


def _size(text: str) -> int:
    """`32M`, `512k`, `1G` or plain bytes."""
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    t = text.strip().lower().removesuffix("b")
    factor = units.get(t[-1:], 1)
    number = t[:-1] if t[-1:] in units else t
    try:
        value = int(float(number) * factor)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (bytes, or with k/M/G)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the size must be positive")
    return value


def _serve(args: argparse.Namespace) -> int:
    import json

    import wiremap

    try:
        import uvicorn
    except ImportError:
        print("error: the gateway needs its extra packages: pip install 'wiremap[gateway]'", file=sys.stderr)
        return 2
    if args.config is not None:
        given = [flag for flag, value in (
            ("--inbound", args.inbound), ("--upstream", args.upstream), ("--upstream-url", args.upstream_url),
            ("--upstream-api-key-env", args.upstream_api_key_env), ("--model-map", args.model_map), ("--strict", args.strict),
        ) if value]
        if given:
            print(f"error: --config {args.config}: {', '.join(given)} conflict(s) with the file; set them in the file", file=sys.stderr)
            return 2
    elif args.inbound is None or args.upstream is None:
        print("error: serve needs --inbound and --upstream, or --config FILE", file=sys.stderr)
        return 2
    model_map = {}
    for item in args.model_map:
        if "=" not in item:
            print(f"error: --model-map {item!r}: expected FROM=TO", file=sys.stderr)
            return 2
        a, b = item.split("=", 1)
        model_map[a] = b
    for name, value in (("--timeout", args.timeout), ("--max-in-flight", args.max_in_flight), ("--graceful-timeout", args.graceful_timeout)):
        if not value > 0:
            print(f"error: {name} must be positive", file=sys.stderr)
            return 2
    config: dict[str, object] = {"timeout": args.timeout, "max_in_flight": args.max_in_flight, "max_body": args.max_body, "access_log": args.access_log}
    if args.config is not None:
        config["config_file"] = os.path.abspath(args.config)  # workers may start elsewhere
    else:
        config.update(inbound=args.inbound, upstream=args.upstream, upstream_url=args.upstream_url, model_map=model_map, strict=args.strict)
    if args.upstream_api_key_env:
        config["upstream_api_key_env"] = args.upstream_api_key_env
    from wiremap.gateway import CONFIG_ENV, app_from_env

    os.environ[CONFIG_ENV] = json.dumps({**config, "access_log": False})  # a check: no log handler yet
    try:
        app_from_env()  # fail here, with a message, rather than in every worker
    except (wiremap.UnknownFormatError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    os.environ[CONFIG_ENV] = json.dumps(config)
    # SIGTERM: uvicorn stops accepting, lets requests in flight finish for --graceful-timeout
    # seconds, cancels what is left, and exits
    uvicorn.run(
        "wiremap.gateway:app_from_env", factory=True, host=args.host, port=args.port, workers=args.workers,
        log_level="info", access_log=args.access_log,
        timeout_graceful_shutdown=max(1, int(-(-args.graceful_timeout // 1))),
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
