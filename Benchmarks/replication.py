"""`make bench-replication`: dbtool replicate against litestream replicate, on
the same workload, side by side in one run, both to a real S3-API server on
loopback (moto, scripts/s3-test-server.py).

For each trial, interleaved between the two tools: an application commits a
row every 10 ms and logs each commit it was acknowledged, with its time; the
replicator ships to its own prefix with a 1 s sync interval; after a few
seconds both are killed with SIGKILL at once (the machine dies); the tool's own
restore is then checked against the log. Reported:

- the loss window: the age, at the kill, of the oldest acknowledged commit
  the restore lacks (0 when none is missing), over every trial;
- point in time: restores at random times T, each checked for every commit
  acknowledged before T - 1 s and for none committed after T;
- writer impact: the application's commit durations (99th and 99.9th
  percentiles over every trial, and the longest) with the replicator
  running, and with none;
- cost: the replicator's CPU seconds per 10,000 transactions and peak RSS,
  and its CPU while the database is idle;
- the writer's commits alone, with dbtool and with Litestream, in
  interleaved rounds (the machine's noise spread over all three);
- a day of history: both tools replicate an application committing one
  transaction a second for a day, time scaled by --day-scale (the rate, the
  compaction levels, Litestream's level-0 retention and the run's length
  all scaled alike, so each level holds the files of a real day), then each
  tool restores the latest state and the state at midday from each replica;
- the scale phase: a database of --scale-mb MB (1 GB by default) with each
  tool: the first copy, a 100 MB transaction (peak RSS), the bytes three
  restarts after clean stops and one after SIGKILL add to the replica, S3
  requests per 10,000 transactions with a snapshot going up among them (and
  the longest stretch without a level-0 upload meanwhile), a follower's
  bytes written, WAL and reader waits, what its restart 10 s behind writes,
  and restore times.

    python3 Benchmarks/replication.py --dbtool PATH --litestream PATH \
        --s3-server "PYTHON scripts/s3-test-server.py" [--trials 20] [--day-scale 144] \
        [--phases trials,writer,day,scale] [--scale-mb 1024] [--results Benchmarks/RESULTS.md]
"""
import argparse
import collections
import datetime
import json
import os
import random
import shlex
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

WRITER = r"""
import sqlite3, sys, time
db, acks, stop = sys.argv[1], sys.argv[2], sys.argv[3]
c = sqlite3.connect(db, isolation_level=None, timeout=30)
c.execute("PRAGMA journal_mode=WAL")
c.execute("CREATE TABLE IF NOT EXISTS event(seq INTEGER PRIMARY KEY, at REAL, pad BLOB)")
seq = c.execute("SELECT coalesce(max(seq), 0) FROM event").fetchone()[0]
with open(acks, "a", buffering=1) as log:
    while not __import__("os").path.exists(stop):
        seq += 1
        start = time.time()
        c.execute("BEGIN IMMEDIATE")
        c.execute("INSERT INTO event VALUES (?, ?, randomblob(200))", (seq, time.time()))
        c.execute("COMMIT")
        end = time.time()
        log.write(f"{seq} {end} {end - start}\n")
        time.sleep(0.01)
"""


DAY_WRITER = r"""
import os, random, sqlite3, sys, time
db, rate, stop = sys.argv[1], float(sys.argv[2]), sys.argv[3]
c = sqlite3.connect(db, isolation_level=None, timeout=30)
count, start = 0, time.time()
while not os.path.exists(stop):
    count += 1
    c.execute("BEGIN IMMEDIATE")
    c.execute("INSERT OR REPLACE INTO item VALUES (?, randomblob(200))", (random.randint(1, 20000),))
    c.execute("COMMIT")
    delay = start + count / rate - time.time()
    if delay > 0:
        time.sleep(delay)
"""


def bytes_written(pid):
    """What process `pid` has written so far (its wchar)."""
    with open(f"/proc/{pid}/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("wchar:"))


def max_seq(database):
    """The highest `event` row of a database; 0 while it can not be read (a follower's restore)."""
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
        try:
            return connection.execute("SELECT coalesce(max(seq), 0) FROM event").fetchone()[0]
        finally:
            connection.close()
    except sqlite3.Error:
        return 0


def read_acks(path):
    acks = []
    with open(path) as log:
        for line in log:
            parts = line.split()
            if len(parts) == 3:
                acks.append((int(parts[0]), float(parts[1]), float(parts[2])))
    return acks


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_measured(command, environment):
    """Runs `command`; returns its exit status, its stderr and its peak RSS in MiB (wait4's)."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        return process.returncode, errors.read().decode(errors="replace"), usage.ru_maxrss / 1024


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Bench:
    def __init__(self, options):
        self.options = options
        self.root = tempfile.mkdtemp(prefix="bench-replication-")
        # Requests under backups/count/ are logged (method, path, query, time): the scale phase counts them.
        self.request_log = self.root + "/requests.log"
        self.server = subprocess.Popen(shlex.split(options.s3_server) + [self.request_log], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True)
        line = ""
        while not line.startswith("{"):
            line = self.server.stdout.readline()
            if not line:
                raise SystemExit("the S3 test server did not start")
        self.s3 = json.loads(line)
        self.environment = dict(os.environ)
        self.environment.pop("AWS_CA_BUNDLE", None)
        self.environment.update({
            "AWS_ENDPOINT_URL": self.s3["endpoint"], "AWS_ACCESS_KEY_ID": self.s3["accessKeyId"],
            "AWS_SECRET_ACCESS_KEY": self.s3["secretAccessKey"], "AWS_REGION": "us-east-1",
            "AWS_EC2_METADATA_DISABLED": "true",
        })

    def close(self):
        self.server.stdin.close()
        self.server.wait(timeout=10)
        subprocess.run(["rm", "-rf", self.root])

    def litestream_config(self, database, prefix, levels=None, snapshot_interval=None):
        path = database + ".litestream.yml"
        with open(path, "w") as config:
            if snapshot_interval:
                config.write(f"snapshot:\n  interval: {snapshot_interval:.0f}s\n")
            if levels:
                # Compaction levels, level-0 retention and snapshots, time scaled.
                intervals, l0_retention, snapshot = levels
                config.write("levels:\n" + "".join(f"  - interval: {seconds:.3f}s\n" for seconds in intervals))
                config.write(f"l0-retention: {l0_retention:.3f}s\nsnapshot:\n  interval: {snapshot:.0f}s\n")
            config.write(f"""dbs:
  - path: {database}
    replicas:
      - type: s3
        bucket: backups
        path: {prefix}
        endpoint: {self.s3["endpoint"]}
        region: us-east-1
        force-path-style: true
        access-key-id: {self.s3["accessKeyId"]}
        secret-access-key: {self.s3["secretAccessKey"]}
        sync-interval: 1s
""")
        return path

    def start_replicator(self, tool, directory, prefix, levels=None, snapshot_interval=None):
        database = directory + "/db.sqlite"
        if tool == "dbtool":
            command = [self.options.dbtool, "replicate", "--database", directory, "--to", f"s3://backups/{prefix}/",
                       "--sync-interval", "1", "--quiet"]
            if levels:
                intervals, _, snapshot = levels
                command += ["--compaction-levels", ",".join(f"{seconds:.3f}s" for seconds in intervals),
                            "--snapshot-interval", f"{snapshot / 3600:.4f}"]
            if snapshot_interval:
                command += ["--snapshot-interval", f"{snapshot_interval / 3600:.5f}"]
        else:
            command = [self.options.litestream, "replicate", "-config",
                       self.litestream_config(database, prefix, levels, snapshot_interval)]
        return subprocess.Popen(command, env=self.environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def restore(self, tool, directory, prefix, output, at=None):
        if tool == "dbtool":
            command = [self.options.dbtool, "restore", f"s3://backups/{prefix}/", output, "--quiet"]
            if at is not None:
                command += ["--at", datetime.datetime.fromtimestamp(at, datetime.timezone.utc).isoformat(timespec="milliseconds")]
            status, errors, self.restore_rss = run_measured(command, self.environment)
            if status != 0:
                raise RuntimeError(f"dbtool {' '.join(command[1:])}: {errors.strip()[-300:]}")
            return output + "/db.sqlite"
        config = self.litestream_config(directory + "/db.sqlite", prefix)
        command = [self.options.litestream, "restore", "-config", config, "-o", output]
        if at is not None:
            command += ["-timestamp", datetime.datetime.fromtimestamp(at, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")]
        status, errors, self.restore_rss = run_measured(command + [directory + "/db.sqlite"], self.environment)
        if status != 0:
            raise RuntimeError(f"litestream restore {' '.join(command[4:])}: {errors.strip()[-300:]}")
        return output

    def new_database(self, name):
        directory = f"{self.root}/{name}"
        os.makedirs(directory)
        connection = sqlite3.connect(directory + "/db.sqlite")
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE event(seq INTEGER PRIMARY KEY, at REAL, pad BLOB)")
        connection.close()
        return directory

    def trial(self, tool, number, seconds):
        directory = self.new_database(f"{tool}-{number}")
        prefix = f"{tool}-{number}"
        acks, stop = directory + "/acks", directory + "/stop"
        writer = subprocess.Popen([sys.executable, "-c", WRITER, directory + "/db.sqlite", acks, stop])
        replicator = self.start_replicator(tool, directory, prefix)
        time.sleep(seconds)
        cpu, rss = cpu_seconds(replicator.pid), peak_rss_mib(replicator.pid)
        # The machine dies: both at once.
        os.kill(replicator.pid, signal.SIGKILL)
        os.kill(writer.pid, signal.SIGKILL)
        killed = time.time()
        replicator.wait()
        writer.wait()
        log = read_acks(acks)
        restored = self.restore(tool, directory, prefix, f"{directory}/restored")
        present = {row[0] for row in sqlite3.connect(restored).execute("SELECT seq FROM event")}
        lost = [at for seq, at, _ in log if seq not in present]
        window = killed - min(lost) if lost else 0.0
        return {"directory": directory, "prefix": prefix, "log": log, "window": window, "lost": len(lost),
                "commits": len(log), "cpu": cpu, "rss": rss, "longest": max((row[2] for row in log), default=0.0),
                "durations": [row[2] for row in log]}

    def point_in_time(self, tool, trial, count):
        failures = 0
        log = trial["log"]
        committed = {}
        for seq, at, _ in log:
            committed[seq] = at
        for index in range(count):
            target = random.uniform(log[len(log) // 5][1], log[-len(log) // 5][1])
            output = f"{trial['directory']}/at-{index}"
            try:
                restored = self.restore(tool, trial["directory"], trial["prefix"], output, at=target)
            except RuntimeError as error:
                print(f"  point in time failed: {error}", flush=True)
                failures += 1
                continue
            rows = {row[0]: row[1] for row in sqlite3.connect(restored).execute("SELECT seq, at FROM event")}
            missing = [seq for seq, at, _ in log if at < target - 1 and seq not in rows]
            late = [seq for seq, at in rows.items() if at > target]
            if missing or late:
                failures += 1
        return failures

    def idle(self, tool, seconds):
        directory = self.new_database(f"{tool}-idle")
        replicator = self.start_replicator(tool, directory, f"{tool}-idle")
        time.sleep(3)
        before = cpu_seconds(replicator.pid)
        time.sleep(seconds)
        used = cpu_seconds(replicator.pid) - before
        replicator.send_signal(signal.SIGTERM)
        replicator.wait(timeout=30)
        return used / seconds

    def objects(self, prefix):
        import boto3
        s3 = boto3.client("s3", endpoint_url=self.s3["endpoint"], region_name="us-east-1",
                          aws_access_key_id=self.s3["accessKeyId"], aws_secret_access_key=self.s3["secretAccessKey"])
        count = 0
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket="backups", Prefix=prefix + "/"):
            count += len(page.get("Contents", []))
        return count

    def day(self, scale):
        """A day of history at one transaction a second, time scaled; returns the report's lines."""
        seconds = 86_400 / scale
        levels = ([30 / scale, 300 / scale, 3600 / scale], 300 / scale, 4 * seconds)
        runs = {}
        for tool in ["dbtool", "litestream"]:
            directory = self.new_database(f"day-{tool}")
            connection = sqlite3.connect(directory + "/db.sqlite")
            connection.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, v BLOB)")
            connection.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
                               "INSERT INTO item SELECT i, randomblob(200) FROM n")
            connection.commit()
            connection.close()
            runs[tool] = {"directory": directory, "prefix": f"day-{tool}"}
        for tool, run in runs.items():
            run["replicator"] = self.start_replicator(tool, run["directory"], run["prefix"], levels)
        time.sleep(3)
        start = time.time()
        for run in runs.values():
            run["writer"] = subprocess.Popen([sys.executable, "-c", DAY_WRITER, run["directory"] + "/db.sqlite",
                                              str(scale), run["directory"] + "/stop"])
        print(f"a day of history at {scale:.0f}x: {seconds:.0f} s of {scale:.0f} transactions a second", flush=True)
        time.sleep(seconds / 2)
        midday = time.time()
        time.sleep(seconds / 2)
        for run in runs.values():
            open(run["directory"] + "/stop", "w").close()
            run["writer"].wait()
        time.sleep(max(levels[0]) + 3)  # the last compactions
        for run in runs.values():
            run["replicator"].send_signal(signal.SIGTERM)
            run["replicator"].wait(timeout=120)
        expected = {tool: sqlite3.connect(run["directory"] + "/db.sqlite").execute(
            "SELECT count(*), sum(length(v)), total(id * unicode(hex(v))) FROM item").fetchone() for tool, run in runs.items()}
        lines = []
        for source, run in runs.items():
            files = self.objects(run["prefix"])
            for restorer in ["dbtool", "litestream"]:
                for label, at in [("latest", None), ("midday", midday)]:
                    times = []
                    for attempt in range(3):
                        output = f"{run['directory']}/restore-{restorer}-{label}-{attempt}"
                        began = time.monotonic()
                        restored = self.restore(restorer, run["directory"], run["prefix"], output, at=at)
                        times.append(time.monotonic() - began)
                        if at is None:
                            state = sqlite3.connect(restored).execute(
                                "SELECT count(*), sum(length(v)), total(id * unicode(hex(v))) FROM item").fetchone()
                            if state != expected[source]:
                                raise RuntimeError(f"{restorer} restored {state} from {source}'s replica, not {expected[source]}")
                    lines.append(f"| {source}'s ({files} objects) | {restorer} | {label} | {statistics.median(times):.2f} s | "
                                 f"{min(times):.2f} s |")
                    print(lines[-1], flush=True)
        return [
            f"### Restore of a day of history ({scale:.0f}x time scale, one run)",
            "",
            f"- Both tools replicate their own copy of the same application at once, to moto: one transaction a second "
            f"(`INSERT OR REPLACE` of a 200-byte row among 20,000) for a day, time scaled {scale:.0f}x: {scale:.0f} "
            f"transactions a second for {seconds:.0f} s, compaction levels of {', '.join(f'{x:.3f}' for x in levels[0])} s "
            f"(30 s, 5 min, 1 h scaled), Litestream's level-0 retention {levels[1]:.2f} s (5 min scaled), no snapshot "
            "after the first, so a restore crosses the whole day; 1 s sync interval for both (level 0 holds a file per "
            "second of the run, not per transaction). Then each tool restores each replica: the latest state (checked "
            "against the database) and the state at midday; median and best of 3.",
            "",
            "| Replica | restored by | state | time, median | best |",
            "| --- | --- | --- | ---: | ---: |",
        ] + lines

    # ----- The scale phase: a database of production size ---------------------------------------------------

    def s3_client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.s3["endpoint"], region_name="us-east-1",
                            aws_access_key_id=self.s3["accessKeyId"], aws_secret_access_key=self.s3["secretAccessKey"])

    def stored_bytes(self, prefix, folders=None):
        """The bytes under the prefix, or under its `folders` only (`0000`, `0009`)."""
        total = 0
        for folder in folders or [""]:
            path = prefix + "/" + (folder + "/" if folder else "")
            for page in self.s3_client().get_paginator("list_objects_v2").paginate(Bucket="backups", Prefix=path):
                total += sum(item["Size"] for item in page.get("Contents", []))
        return total

    def wait_stored(self, prefix, at_least, timeout=1800):
        """Waits until the prefix holds `at_least` bytes, then until it stops growing (3 s)."""
        deadline = time.time() + timeout
        while self.stored_bytes(prefix) < at_least:
            if time.time() > deadline:
                raise RuntimeError(f"{prefix} never held {at_least} bytes")
            time.sleep(1)
        return self.wait_quiet(prefix)

    def wait_quiet(self, prefix, quiet=3.0, timeout=600):
        last, since, deadline = -1, time.time(), time.time() + timeout
        while time.time() < deadline:
            now = self.stored_bytes(prefix)
            if now != last:
                last, since = now, time.time()
            elif time.time() - since >= quiet:
                return now
            time.sleep(0.5)
        return last

    def requests(self, predicate, start, end):
        rows = []
        with open(self.request_log) as log:
            for line in log:
                request = json.loads(line)
                if start <= request["time"] < end and predicate(request):
                    rows.append(request)
        return rows

    def fill(self, directory, megabytes):
        connection = sqlite3.connect(directory + "/db.sqlite", isolation_level=None)
        connection.execute("CREATE TABLE blob(id INTEGER PRIMARY KEY, data BLOB)")
        rows = megabytes * 250
        for start in range(0, rows, 10_000):
            connection.execute("BEGIN")
            connection.execute("WITH RECURSIVE c(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM c WHERE i < ?) "
                               "INSERT INTO blob SELECT i, randomblob(4000) FROM c", (start + 1, min(start + 10_000, rows)))
            connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()

    def change(self, directory, first, count):
        connection = sqlite3.connect(directory + "/db.sqlite", isolation_level=None)
        connection.execute("UPDATE blob SET data = randomblob(4000) WHERE id BETWEEN ? AND ?", (first, first + count - 1))
        connection.close()  # the last connection: SQLite checkpoints and removes the log

    def stop(self, process, kill=False):
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        process.wait(timeout=120)

    def follower(self, tool, directory, prefix, output):
        if tool == "dbtool":
            command = [self.options.dbtool, "restore", f"s3://backups/{prefix}/", output, "--follow", "--follow-interval", "1", "--quiet"]
            database = output + "/db.sqlite"
        else:
            config = self.litestream_config(directory + "/db.sqlite", prefix)
            command = [self.options.litestream, "restore", "-config", config, "-o", output, "-f", "-follow-interval", "1s",
                       directory + "/db.sqlite"]
            database = output
        errors = open(output + ".stderr", "w")
        return subprocess.Popen(command, env=self.environment, stdout=subprocess.DEVNULL, stderr=errors), database

    def scale(self, megabytes):
        """A database of `megabytes` MB with each tool; returns the report's lines."""
        measured = {}
        for tool in self.options.scale_tools.split(","):
            m = measured[tool] = {}
            directory = self.new_database(f"scale-{tool}")
            prefix = f"count/scale-{tool}"
            print(f"scale {tool}: filling {megabytes} MB", flush=True)
            self.fill(directory, megabytes)
            size = os.path.getsize(directory + "/db.sqlite")
            rss = []
            began = time.monotonic()
            replicator = self.start_replicator(tool, directory, prefix)
            self.wait_stored(prefix, int(size * 0.9))
            m["first"] = time.monotonic() - began
            print(f"scale {tool}: the first copy took {m['first']:.1f} s", flush=True)
            # A 100 MB transaction.
            stored = self.stored_bytes(prefix)
            connection = sqlite3.connect(directory + "/db.sqlite", isolation_level=None)
            connection.execute("UPDATE blob SET data = randomblob(4000) WHERE id <= 25000")
            connection.close()
            self.wait_stored(prefix, stored + 90_000_000)
            rss.append(peak_rss_mib(replicator.pid))
            m["rss_transaction"] = rss[-1]
            # Restarts after clean stops (the log checkpointed away meanwhile), then after SIGKILL: what they
            # ship (level 0, and a snapshot if one is taken); the compactions of levels 1 and up come anyway.
            shipped = ["0000", "0009"]
            m["restarts"] = []
            for round in range(4):
                kill = round == 3
                self.wait_quiet(prefix)
                before = self.stored_bytes(prefix, shipped)
                app = None
                if kill:
                    # An application keeps the log; the replicator dies.
                    app = sqlite3.connect(directory + "/db.sqlite", isolation_level=None)
                    app.execute("UPDATE blob SET data = randomblob(4000) WHERE id BETWEEN 30001 AND 30005")
                    time.sleep(2)
                rss.append(peak_rss_mib(replicator.pid))
                self.stop(replicator, kill=kill)
                if not kill:
                    self.change(directory, 40_000 + round * 10, 5)
                replicator = self.start_replicator(tool, directory, prefix)
                time.sleep(5)
                self.wait_quiet(prefix)
                after = self.stored_bytes(prefix, shipped)
                if app:
                    app.close()
                m["restarts"].append(after - before)
                print(f"scale {tool}: restart {round} ({'SIGKILL' if kill else 'clean'}) added {(after - before) / 1_048_576:.1f} MiB",
                      flush=True)
            rss.append(peak_rss_mib(replicator.pid))
            self.stop(replicator)
            # 10,000 transactions, with a snapshot going up in the middle: requests, and level 0 beside the snapshot.
            replicator = self.start_replicator(tool, directory, prefix, snapshot_interval=60)
            time.sleep(5)
            acks, stop = directory + "/acks", directory + "/stop"
            start = time.time()
            writer = subprocess.Popen([sys.executable, "-c", WRITER, directory + "/db.sqlite", acks, stop])
            while not os.path.exists(acks) or len(read_acks(acks)) < 10_000:
                time.sleep(1)
            end = time.time()
            m["midpoint"] = (start + end) / 2
            m["requests"] = len(self.requests(lambda r: f"scale-{tool}" in r["path"] + r["query"], start, end))
            m["request_rate"] = m["requests"] / (end - start)
            snapshot = self.requests(lambda r: f"scale-{tool}/0009/" in r["path"], start, end)
            level_zero = sorted(r["time"] for r in self.requests(
                lambda r: f"scale-{tool}/0000/" in r["path"] and r["method"] == "PUT", start, end))
            if snapshot:
                # A stretch counts from the writer's first commit: before it there was nothing to ship (a
                # snapshot due at the start goes up while the writer starts).
                first_commit = min(ack[1] for ack in read_acks(acks) if ack[1] >= start)
                window = (max(min(r["time"] for r in snapshot) - 1, first_commit), max(r["time"] for r in snapshot) + 1)
                inside = [t for t in level_zero if window[0] <= t <= window[1]]
                marks = [window[0]] + inside + [window[1]]
                m["gap"] = max(b - a for a, b in zip(marks, marks[1:]))
                m["snapshot_seconds"] = max(r["time"] for r in snapshot) - min(r["time"] for r in snapshot)
                # Until the server is asked to assemble the parts (CompleteMultipartUpload): moto then
                # answers no request until the object is whole, seconds for a gigabyte.
                completions = [r["time"] for r in snapshot if r["method"] == "POST" and "uploadId=" in r["query"]]
                parts_end = min(completions) if completions else window[1]
                inside = [t for t in level_zero if window[0] <= t <= parts_end]
                marks = [window[0]] + inside + [parts_end]
                m["gap_parts"] = max(b - a for a, b in zip(marks, marks[1:]))
                # Each completion: how long after the last level-0 upload it was asked, and when the next
                # level-0 upload reached the server (the server's pause, when it answers nothing meanwhile).
                m["completions"] = [
                    (c - max((t for t in level_zero if t <= c), default=c), min((t for t in level_zero if t > c), default=c) - c)
                    for c in completions]
            else:
                m["gap"], m["gap_parts"], m["snapshot_seconds"], m["completions"] = None, None, None, []
            # A follower with a reader attached, while the writer goes on.
            copy = f"{directory}/follower-copy"
            follower, copy_db = self.follower(tool, directory, prefix, copy)
            deadline = time.time() + 600
            while not os.path.exists(copy_db) and time.time() < deadline:
                if follower.poll() is not None:
                    raise RuntimeError(f"the {tool} follower stopped: {open(copy + '.stderr').read()[-500:]}")
                time.sleep(0.5)
            time.sleep(5)
            def written():
                return bytes_written(follower.pid)
            before = written()
            reader = sqlite3.connect(f"file:{copy_db}?mode=ro", uri=True, timeout=30)
            longest_read, wal = 0.0, 0
            follow_start = time.time()
            while time.time() - follow_start < 40:
                read_began = time.monotonic()
                reader.execute("SELECT count(*) FROM event").fetchone()
                longest_read = max(longest_read, time.monotonic() - read_began)
                wal = max(wal, os.path.getsize(copy_db + "-wal") if os.path.exists(copy_db + "-wal") else 0)
                time.sleep(0.1)
            m["follower_written"] = written() - before
            m["follower_wal"] = wal
            m["follower_read"] = longest_read
            m["follower_rss"] = peak_rss_mib(follower.pid)
            reader.close()
            self.stop(follower)
            # Stopped (SIGTERM) while the writer goes on, started again 10 s later: what the restart
            # writes until the copy holds every commit made before it.
            time.sleep(10)
            target = max_seq(directory + "/db.sqlite")
            began = time.monotonic()
            follower, copy_db = self.follower(tool, directory, prefix, copy)
            m["follower_restart_failure"] = None
            while max_seq(copy_db) < target:
                if follower.poll() is not None:
                    # A follower that refuses to go on: the report says why.
                    reason = open(copy + ".stderr").read().strip().splitlines()
                    m["follower_restart_failure"] = reason[-1].split(";")[0][:160] if reason else f"exit {follower.returncode}"
                    break
                if time.monotonic() - began > 600:
                    raise RuntimeError(f"the {tool} follower did not catch up after its restart")
                time.sleep(0.05)
            if m["follower_restart_failure"] is None:
                m["follower_restart_seconds"] = time.monotonic() - began
                m["follower_restart_written"] = bytes_written(follower.pid)
                self.stop(follower)
            open(stop, "w").close()
            writer.wait()
            time.sleep(3)
            rss.append(peak_rss_mib(replicator.pid))
            self.stop(replicator)
            m["rss"] = max(rss)
            # Restores: the latest state, and the state at the writer's midpoint.
            for label, at in [("latest", None), ("point", m["midpoint"])]:
                output = f"{directory}/restore-{label}"
                began, began_wall = time.monotonic(), time.time()
                self.restore(tool, directory, prefix, output, at=at)
                m[f"restore_{label}"] = time.monotonic() - began
                m[f"restore_{label}_rss"] = self.restore_rss
                # What the restore asked the store, to explain its time.
                asked = self.requests(lambda r: f"scale-{tool}" in r["path"] + r["query"], began_wall, time.time())
                m[f"restore_{label}_requests"] = dict(collections.Counter(r["method"] for r in asked))
            m["stored"] = self.stored_bytes(prefix)
            print(f"scale {tool}: {m}", flush=True)
        mib = lambda value: f"{value / 1_048_576:.1f} MiB"
        rows = [
            ("the first copy of the database", lambda m: f"{m['first']:.1f} s"),
            ("bytes a restart after a clean stop ships (level 0 and 9), each of 3", lambda m: ", ".join(mib(x) for x in m["restarts"][:3])),
            ("bytes a restart after SIGKILL ships", lambda m: mib(m["restarts"][3])),
            ("peak RSS with a 100 MB transaction", lambda m: f"{m['rss_transaction']:.0f} MiB"),
            ("peak RSS over the run", lambda m: f"{m['rss']:.0f} MiB"),
            ("S3 requests per 10,000 transactions (100 a second)", lambda m: f"{m['requests']} ({m['request_rate']:.2f} a second)"),
            ("longest stretch without a level-0 upload while a snapshot goes up",
             lambda m: "no snapshot in the run" if m["gap"] is None else f"{m['gap']:.2f} s (snapshot: {m['snapshot_seconds']:.0f} s)"),
            ("the same, until the server assembles the snapshot's parts",
             lambda m: "no snapshot in the run" if m["gap_parts"] is None else f"{m['gap_parts']:.2f} s"),
            ("each completion of a snapshot's upload: asked after the last level-0 upload / the next one after it",
             lambda m: "; ".join(f"{since:.2f} / {pause:.2f} s" for since, pause in m["completions"]) or "none in the run"),
            ("follower: bytes written in 40 s of updates", lambda m: mib(m["follower_written"])),
            ("follower: the copy's WAL, largest", lambda m: mib(m["follower_wal"])),
            ("follower: the longest read of a reader attached", lambda m: f"{m['follower_read'] * 1000:.0f} ms"),
            ("follower: peak RSS", lambda m: f"{m['follower_rss']:.0f} MiB"),
            ("follower: a restart 10 s behind, bytes written until caught up (seconds)",
             lambda m: f"failed: {m['follower_restart_failure']}" if m["follower_restart_failure"]
             else f"{mib(m['follower_restart_written'])} ({m['follower_restart_seconds']:.1f} s)"),
            ("restore of the latest state (peak RSS)", lambda m: f"{m['restore_latest']:.1f} s ({m['restore_latest_rss']:.0f} MiB)"),
            ("restore of a point in time (peak RSS)", lambda m: f"{m['restore_point']:.1f} s ({m['restore_point_rss']:.0f} MiB)"),
            ("the replica's size at the end", lambda m: mib(m["stored"])),
        ]
        return [
            f"### A database of {megabytes} MB (one run, dbtool then Litestream)",
            "",
            f"- Each tool replicates its own {megabytes} MB database (rows of 4 KB of random bytes) to moto on loopback "
            "with a 1 s sync interval; a 100 MB transaction; three restarts after clean stops (5 rows changed by an "
            "application whose last connection, closing, checkpoints the log away) and one after SIGKILL (an "
            "application keeps the log); then 10,000 transactions at 100 a second with a snapshot due after 60 s "
            "(requests counted from moto's log), a follower with a reader attached for 40 s, then stopped and started "
            "again 10 s later, and restores.",
            "",
            "| Measure | dbtool | litestream |",
            "| --- | ---: | ---: |",
        ] + [f"| {label} | " + " | ".join(show(measured[tool]) if tool in measured else "not run" for tool in ["dbtool", "litestream"]) + " |"
             for label, show in rows]

    def writer_rounds(self, rounds, seconds):
        """The application's commit durations alone, with dbtool and with Litestream
        replicating to S3, interleaved round by round; returns the report's lines."""
        def quantile(values, q):
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, int(len(ordered) * q))]
        measured = {"none": [], "dbtool": [], "litestream": []}
        for number in range(rounds):
            order = ["none", "dbtool", "litestream"]
            for tool in order[number % 3:] + order[:number % 3]:
                directory = self.new_database(f"writer-{tool}-{number}")
                acks, stop = directory + "/acks", directory + "/stop"
                replicator = None if tool == "none" else self.start_replicator(tool, directory, f"writer-{tool}-{number}")
                time.sleep(2)
                writer = subprocess.Popen([sys.executable, "-c", WRITER, directory + "/db.sqlite", acks, stop])
                time.sleep(seconds)
                open(stop, "w").close()
                writer.wait()
                if replicator:
                    replicator.send_signal(signal.SIGTERM)
                    replicator.wait(timeout=60)
                durations = [row[2] for row in read_acks(acks)]
                measured[tool].append((quantile(durations, 0.99), quantile(durations, 0.999), max(durations)))
                print(f"writer round {number} {tool}: p99 {measured[tool][-1][0] * 1000:.1f} ms, "
                      f"longest {measured[tool][-1][2] * 1000:.1f} ms", flush=True)
        lines = [
            f"### The application's commits with and without replication ({rounds} interleaved rounds, one run)",
            "",
            f"- The same application (a 200-byte row every 10 ms) for {seconds:.0f} s per round, with no replicator, with "
            "`dbtool replicate` and with `litestream replicate` to moto (1 s sync interval), the order rotated each round. "
            "Per round: the 99th and 99.9th percentiles of its commit durations and its longest commit; below, the median "
            "of the rounds.",
            "",
            "| Replicator | commit p99 | p99.9 | longest |",
            "| --- | ---: | ---: | ---: |",
        ]
        for tool, rows in measured.items():
            lines.append(f"| {tool} | {statistics.median(r[0] for r in rows) * 1000:.1f} ms | "
                         f"{statistics.median(r[1] for r in rows) * 1000:.1f} ms | {statistics.median(r[2] for r in rows) * 1000:.1f} ms |")
        return lines

    def baseline_longest_commit(self, seconds):
        """The commit durations of the application with no replicator."""
        directory = self.new_database("baseline")
        acks, stop = directory + "/acks", directory + "/stop"
        writer = subprocess.Popen([sys.executable, "-c", WRITER, directory + "/db.sqlite", acks, stop])
        time.sleep(seconds)
        open(stop, "w").close()
        writer.wait()
        return [row[2] for row in read_acks(acks)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dbtool", required=True)
    parser.add_argument("--litestream", required=True)
    parser.add_argument("--s3-server", required=True)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--day-scale", type=float, default=144)
    parser.add_argument("--phases", default="trials,writer,day,scale")
    parser.add_argument("--scale-mb", type=int, default=1024)
    parser.add_argument("--scale-tools", default="dbtool,litestream", help="the tools of the scale phase (a column each)")
    parser.add_argument("--writer-rounds", type=int, default=9)
    parser.add_argument("--results")
    options = parser.parse_args()
    phases = options.phases.split(",")
    bench = Bench(options)
    tools = ["dbtool", "litestream"]
    if "trials" not in phases:
        try:
            if "writer" in phases:
                writer = bench.writer_rounds(options.writer_rounds, 15)
                write_block(options.results, "replication-writer", "\n".join(writer))
            if "day" in phases:
                day = bench.day(options.day_scale)
                write_block(options.results, "replication-day", "\n".join(day))
            if "scale" in phases:
                scale = bench.scale(options.scale_mb)
                write_block(options.results, "replication-scale", "\n".join(scale))
        finally:
            bench.close()
        return
    try:
        results = {tool: [] for tool in tools}
        pitr = {tool: 0 for tool in tools}
        pitr_runs = {tool: 0 for tool in tools}
        for number in range(options.trials):
            for tool in (tools if number % 2 == 0 else list(reversed(tools))):
                trial = bench.trial(tool, number, options.seconds)
                results[tool].append(trial)
                if number < 4:
                    pitr[tool] += bench.point_in_time(tool, trial, 5)
                    pitr_runs[tool] += 5
                print(f"{tool} trial {number}: window {trial['window']:.2f} s, {trial['lost']} lost of {trial['commits']}, "
                      f"cpu {trial['cpu']:.2f} s, rss {trial['rss']:.0f} MiB, longest commit {trial['longest'] * 1000:.1f} ms",
                      flush=True)
        idle = {tool: bench.idle(tool, 20) for tool in tools}
        baseline = bench.baseline_longest_commit(options.seconds * 3)
        writer = bench.writer_rounds(options.writer_rounds, 15) if "writer" in phases else None
        day = bench.day(options.day_scale) if "day" in phases else None
        scale = bench.scale(options.scale_mb) if "scale" in phases else None
    finally:
        bench.close()

    def quantile(values, q):
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0

    def row(tool):
        trials = results[tool]
        durations = [d for t in trials for d in t["durations"]]
        windows = sorted(t["window"] for t in trials)
        commits = sum(t["commits"] for t in trials)
        cpu = sum(t["cpu"] for t in trials)
        return (f"| {tool} | {statistics.median(windows):.2f} s | {windows[int(len(windows) * 0.9) - 1]:.2f} s | "
                f"{max(windows):.2f} s | {sum(t['lost'] for t in trials)} of {commits} | "
                f"{pitr_runs[tool] - pitr[tool]} of {pitr_runs[tool]} | "
                f"{quantile(durations, 0.99) * 1000:.1f} ms / {quantile(durations, 0.999) * 1000:.1f} ms / "
                f"{statistics.median(t['longest'] for t in trials) * 1000:.1f} ms / {max(t['longest'] for t in trials) * 1000:.1f} ms | "
                f"{cpu / commits * 10_000:.2f} s | {max(t['rss'] for t in trials):.0f} MiB | {idle[tool] * 100:.2f}% |")

    report = "\n".join([
        f"### dbtool replicate against litestream replicate ({options.trials} trials each, interleaved, one run)",
        "",
        f"- Machine: {os.uname().sysname} {os.uname().release}, {os.cpu_count()} cores; both replicate to moto on loopback "
        "(S3 API, authentication on) with a 1 s sync interval; Litestream 0.5.17.",
        f"- Workload: an application commits a 200-byte row every 10 ms and logs each acknowledged commit; after "
        f"{options.seconds:.0f} s the replicator and the application are killed with SIGKILL at once, and the tool's own "
        "restore is checked against the log. Loss window: the age at the kill of the oldest acknowledged commit missing "
        "(0 when none). Point in time: 5 restores at random T in each of the first 4 trials, each holding every commit "
        "acknowledged before T - 1 s and none committed after T.",
        "",
        "| Tool | loss window, median | p90 | max | commits lost | point in time right | commit p99 / p99.9 / longest (median of trials) / longest | CPU per 10,000 tx | peak RSS | idle CPU |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        row("dbtool"),
        row("litestream"),
        "",
        f"The same application with no replicator ({len(baseline)} commits): p99 {quantile(baseline, 0.99) * 1000:.1f} ms, "
        f"p99.9 {quantile(baseline, 0.999) * 1000:.1f} ms, longest {max(baseline, default=0.0) * 1000:.1f} ms.",
    ])
    print(report)
    write_block(options.results, "replication", report)
    if writer:
        write_block(options.results, "replication-writer", "\n".join(writer))
    if day:
        write_block(options.results, "replication-day", "\n".join(day))
    if scale:
        write_block(options.results, "replication-scale", "\n".join(scale))


def write_block(results, name, report):
    """Replaces the block `name` of the results file (appended when new)."""
    if not results:
        return
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    with open(results) as results_file:
        text = results_file.read()
    block = f"{begin}\n{report}\n{end}"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text += "\n" + block + "\n"
    with open(results, "w") as results_file:
        results_file.write(text)


if __name__ == "__main__":
    main()
