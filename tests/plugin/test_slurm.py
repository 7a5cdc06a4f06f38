"""Proved on a real batch engine: a single-node Slurm the test starts itself (Debian's slurm-wlm:
munged, slurmctld and slurmd, a one-node slurm.conf in a temporary folder, everything on
loopback) grades a small sweep as the array job docs/sweeps.md shows, 4 tasks with
`--tcab-shard=auto/4`, merges the shards with a dependent job and finds the unsharded sweep's
rows; then again with one task killed (scancel) mid-run and requeued, which resumes its own folder.

Skipped, saying so, where Slurm is not installed (`scripts/bootstrap --slurm` installs it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sweep_suite import ARGS
from sweep_suite import write_sweep_suite

from pytest_tcab.shards import hash_index
from pytest_tcab.run.report.journal import journal_rows

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol")
MISSING = [name for name in DAEMONS if shutil.which(name) is None and not Path("/usr/sbin", name).exists()]
pytestmark = [
    pytest.mark.wasm,
    pytest.mark.skipif(bool(MISSING), reason=f"Slurm is not installed here (no {', '.join(MISSING)}): Debian's "
                                              "slurm-wlm and munge, which scripts/bootstrap --slurm installs"),
]

DOCS = Path(__file__).resolve().parents[2] / "docs/sweeps.md"
SHARDS = 4
GAME_MANIFEST = Path("suite/versions/v1.0.0/test-cases/game.toml")
SLOW_BUILD = "if [ -f slow ]; then sleep 300; fi; mkdir -p dist && cp index.html dist/"
"""The game's build: a run holding a file `slow` is still building when its task is killed."""
RUNS = ("a-hero", "b-game", "c-game", "d-hero", "e-game", "f-hero", "g-game")
"""Named `<letter>-<what it is a copy of>`; by hash, every shard of 4 gets one (shard 1: a-hero, b-game, e-game)."""
WAIT_S = 420.0
"""The longest any one wait may take (a job's start, a shard's sweep), on a host loaded twice over."""


def _exe(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Slurm:
    """A running one-node cluster: its folder and the environment its commands need."""

    folder: Path
    env: dict[str, str]

    def run(self, *command: str, cwd: Path | None = None) -> str:
        done = subprocess.run([_exe(command[0]), *command[1:]], cwd=cwd, env=self.env, capture_output=True,
                              text=True, timeout=60, check=False)
        assert done.returncode == 0, f"{' '.join(command)}: {done.stdout}{done.stderr}\n{self.logs()}"
        return done.stdout.strip()

    def submit(self, *args: str, cwd: Path) -> str:
        return self.run("sbatch", "--parsable", *args, cwd=cwd).split(";")[0]

    def state(self, job: str) -> str:
        return self.run("squeue", "-h", "-j", job, "-o", "%T")

    def wait_gone(self, job: str) -> None:
        """Until no task of `job` is pending or running."""
        deadline = time.monotonic() + WAIT_S
        while self.state(job):
            assert time.monotonic() < deadline, f"job {job} still queued after {WAIT_S:g} s:\n{self.logs()}"
            time.sleep(0.5)

    def logs(self) -> str:
        return "\n".join(f"-- {path.name}:\n{path.read_text(errors='replace')[-3000:]}"
                         for path in sorted((self.folder / "log").glob("*.log")))


def _write_conf(folder: Path, host: str) -> Path:
    conf = folder / "slurm.conf"
    conf.write_text(f"""\
ClusterName=tcab
SlurmctldHost={host}(127.0.0.1)
SlurmUser={os.environ.get("USER") or "root"}
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
AuthType=auth/munge
AuthInfo=socket={folder}/munge/munge.socket
CredType=cred/munge
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/log/slurmctld.log
SlurmdLogFile={folder}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} State=UNKNOWN
PartitionName=tcab Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
    return conf


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Slurm]:
    """munged, slurmctld and slurmd of a one-node cluster in a folder of the test's own, stopped after."""
    folder = tmp_path_factory.mktemp("slurm")
    for part in ("state", "spool", "munge", "log"):
        (folder / part).mkdir(mode=0o700)
    host = socket.gethostname().split(".")[0]
    conf = _write_conf(folder, host)
    env = {**os.environ, "SLURM_CONF": str(conf)}
    key = folder / "munge/munge.key"
    subprocess.run([_exe("mungekey"), "--create", f"--keyfile={key}"], check=True, timeout=60)
    key.chmod(0o400)
    subprocess.run([_exe("munged"), f"--key-file={key}", f"--socket={folder}/munge/munge.socket",
                    f"--pid-file={folder}/munge/munged.pid", f"--log-file={folder}/log/munged.log",
                    f"--seed-file={folder}/munge/munged.seed", "--force"], check=True, timeout=60)
    cluster = Slurm(folder, env)
    try:
        subprocess.run([_exe("slurmctld"), "-f", str(conf)], env=env, check=True, timeout=60)
        subprocess.run([_exe("slurmd"), "-f", str(conf), "-N", host], env=env, check=True, timeout=60)
        deadline = time.monotonic() + 60
        while "idle" not in cluster.run("sinfo", "-h", "-o", "%t"):
            assert time.monotonic() < deadline, f"the node never became idle:\n{cluster.logs()}"
            time.sleep(0.5)
        yield cluster
    finally:
        for pid_file in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
            _stop(folder / pid_file)


def _stop(pid_file: Path) -> None:
    """End the daemon whose pid the file holds (and wait for it), if it is there."""
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            os.kill(pid, 0)
            time.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _docs_scripts() -> tuple[str, str]:
    """The array job and the merge job, as docs/sweeps.md shows them (for 8 shards)."""
    text = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    array = next(block for block in blocks if "#SBATCH --array=" in block)
    merge = next(block for block in blocks if "--dependency=afterany:$ARRAY_JOB_ID" in block)
    return array, merge


def _array_script(project: Path) -> Path:
    """The docs' array job for 4 shards, its `pytest` the one this test runs under."""
    array, _ = _docs_scripts()
    assert "--array=0-7" in array and "auto/8" in array, array
    pytest_command = f"{sys.executable} -m pytest {' '.join(ARGS)}"
    script = (array.replace("--array=0-7", f"--array=0-{SHARDS - 1}").replace("auto/8", f"auto/{SHARDS}")
              .replace("--cpus-per-task=2", "--cpus-per-task=1")  # two tasks at once on a two-core node
              .replace("--tcab-suite=suite", "").replace("pytest ", f"{pytest_command} ", 1)
              .replace("#SBATCH --array", "#SBATCH --output=slurm-%A_%a.out\n#SBATCH --array", 1))
    path = project / "sweep.sbatch"
    path.write_text(script)
    return path


def _merge_command(array_job: str) -> list[str]:
    """The docs' dependent merge job, as sbatch arguments."""
    _, merge = _docs_scripts()
    wrapped = re.search(r"--wrap \\\n\s*'(.*)'", merge, flags=re.DOTALL)
    assert wrapped is not None, merge
    command = wrapped[1].replace("pytest --tcab-suite=suite", f"{sys.executable} -m pytest {' '.join(ARGS)}")
    return [f"--dependency=afterany:{array_job}", "--output=slurm-merge-%j.out", "--wrap", command]


def _project(root: Path) -> Path:
    """The tests' own small sweep: game runs (a shell build) and sprite runs, under `runs/`."""
    runs = write_sweep_suite(root)
    manifest = root / GAME_MANIFEST
    manifest.write_text(manifest.read_text().replace('build = "mkdir -p dist && cp index.html dist/"',
                                                     f'build = "{SLOW_BUILD}"'))
    for name in RUNS:
        shutil.copytree(runs / name.split("-")[1], root / "runs" / name)
    for name in os.listdir(runs):
        if name not in RUNS:
            shutil.rmtree(runs / name)
    return root


def _rows(out: Path) -> dict[str, dict[str, Any]]:
    document = json.loads((out / "sweep.json").read_text())
    return {row["run"]: {key: value for key, value in row.items() if key not in ("duration_s", "resumed")}
            for row in document["runs"]}


def _unsharded(project: Path) -> dict[str, dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "pytest", *ARGS, "--tcab-run=runs", "--tcab-out=results/whole",
                           "-p", "no:xdist"], cwd=project, capture_output=True, text=True, timeout=WAIT_S, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    return _rows(project / "results/whole")


def _shard_of(name: str) -> int:
    return hash_index(name, SHARDS)


def test_an_array_job_of_four_shards_merges_into_the_unsharded_sweep(slurm: Slurm, tmp_path: Path) -> None:
    project = _project(tmp_path)
    whole = _unsharded(project)
    job = slurm.submit(str(_array_script(project)), cwd=project)
    merge = slurm.submit(*_merge_command(job), cwd=project)
    slurm.wait_gone(merge)
    logs = "\n".join(path.read_text() for path in sorted(project.glob("slurm-*.out")))
    assert (project / "results/merged/sweep.json").is_file(), logs
    assert _rows(project / "results/merged") == whole, logs
    for index in range(SHARDS):  # every task wrote its shard, an empty one too
        assert (project / f"results/shard-{index}/results.json").is_file(), logs


def test_a_killed_task_requeued_resumes_its_own_folder(slurm: Slurm, tmp_path: Path) -> None:
    project = _project(tmp_path)
    whole = _unsharded(project)
    by_shard: dict[int, list[str]] = {}
    for name in RUNS:
        by_shard.setdefault(_shard_of(name), []).append(name)
    target = next((index for index, names in sorted(by_shard.items())
                   if len(names) >= 2 and max(names).endswith("game")), None)
    assert target is not None, f"no shard of {by_shard} ends with a game run after another run: rename RUNS"
    slow = max(by_shard[target])
    (project / "runs" / slow / "slow").write_text("")
    job = slurm.submit(str(_array_script(project)), cwd=project)
    shard = project / f"results/shard-{target}"
    deadline = time.monotonic() + WAIT_S
    while len(journal_rows(shard)) < len(by_shard[target]) - 1:  # every run before the slow one is on record
        assert time.monotonic() < deadline, f"shard {target} finished no run in time:\n{slurm.logs()}"
        time.sleep(0.5)
    task = f"{job}_{target}"
    assert slurm.state(task) == "RUNNING"
    slurm.run("scancel", task)  # killed mid-run: the slow run was building
    deadline = time.monotonic() + WAIT_S
    while slurm.state(task):
        assert time.monotonic() < deadline, f"task {task} was not cancelled:\n{slurm.logs()}"
        time.sleep(0.5)
    kept = set(journal_rows(shard))
    assert slow not in kept and kept
    (project / "runs" / slow / "slow").unlink()
    slurm.run("scontrol", "requeue", task)
    slurm.run("scontrol", "update", f"jobid={task}", "StartTime=now")  # a requeued job waits two minutes otherwise
    merge = slurm.submit(*_merge_command(job), cwd=project)
    slurm.wait_gone(merge)
    logs = "\n".join(path.read_text() for path in sorted(project.glob("slurm-*.out")))
    again = (project / f"slurm-{job}_{target}.out").read_text()  # the requeued task's own output
    assert f" {slow}: graded" in again, again
    for name in kept:  # carried from its folder, not graded again
        assert f" {name}: graded" not in again, again
    resumed = json.loads((shard / "sweep.json").read_text())
    assert {row["run"] for row in resumed["runs"] if row.get("resumed")} == kept
    assert _rows(project / "results/merged") == whole, logs
