"""Hostile builds on the review page, one attempt each: the build posts its own review, reads the form
or the page, takes the top page, opens a window, submits a form, guesses the token, or is opened
outside its frame. Each is refused, and the reviewer's review stays what the reviewer wrote.

The builds are told the page's origin (a build should not know it: the page sends no referrer, and
its port is drawn anew each session), so each test shows the refusal, not the build's ignorance."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.review.fold import ReviewTarget
from pytest_tcab.review.grammar import Review
from pytest_tcab.review.grammar import ReviewVerdict
from pytest_tcab.review.store import save_review
from tests.review.page.conftest import REVIEWER
from tests.review.page.conftest import RUN
from tests.review.page.conftest import ReviewPage
from tests.review.page.conftest import copy_results
from tests.review.page.conftest import start_page
from tests.review.page.conftest import stop_page

pytestmark = pytest.mark.browser

ATTEMPT_S = 20.0
"""How long a hostile build has to make its attempt and say it is done (a loaded host, a cold frame)."""

HARNESS = """<!doctype html><meta charset="utf-8"><title>hostile</title><body><canvas id="game"></canvas><script>
const PAGE = %(page)s, RUN = %(run)s;
function say(what, value) { console.log("tcab-attack " + JSON.stringify({what, value: String(value)})); }
const violations = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(e.blockedURI));
const owned = JSON.stringify({fields: {"review.spin.stationary": "pass", "note.spin.stationary": "owned",
  "rating.single-player": "flawless", body: "owned by the build"}, revision: "owned"});
async function attempt(what, act) {
  try { say(what, await act()); } catch (error) { say(what, error.name); }
}
(async () => {
%(attack)s
  await new Promise((done) => setTimeout(done, 300));
  say("violations", violations.join(" "));
  say("done", true);
})();
</script>"""

ATTACKS = {
    "hostile-post": """
  await attempt("fetch-json", async () => (await fetch(PAGE + "/api/save/" + RUN, {method: "POST", body: owned,
    headers: {"Content-Type": "application/json", "X-Tcab-Token": "guessed"}})).status);
  await attempt("fetch-no-cors", async () => (await fetch(PAGE + "/api/save/" + RUN, {method: "POST", body: owned,
    mode: "no-cors", headers: {"Content-Type": "text/plain"}})).type);
  await attempt("beacon", () => navigator.sendBeacon(PAGE + "/api/save/" + RUN, owned));
  await attempt("xhr", () => new Promise((done, fail) => { const x = new XMLHttpRequest();
    x.open("POST", PAGE + "/api/save/" + RUN); x.onload = () => done(x.status); x.onerror = () => fail(new TypeError());
    x.send(owned); }));
""",
    "hostile-read": """
  await attempt("parent.document", () => parent.document.forms.length);
  await attempt("top.token", () => top.document.querySelector('meta[name="tcab-token"]').content);
  await attempt("parent.form", () => parent.document.getElementById("review-form").elements.length);
  await attempt("parent.body", () => parent.document.body.innerHTML.length);
  await attempt("localStorage", () => localStorage.length);
  await attempt("cookie", () => document.cookie);
  await attempt("origin", () => window.origin);
  await attempt("fetch-page", async () => (await (await fetch(PAGE + "/run/" + RUN)).text()).length);
""",
    "hostile-top": """
  await attempt("top.location", () => { top.location.href = PAGE + "/?taken-by-the-build"; return "assigned"; });
  await attempt("open-top", () => window.open(PAGE + "/?taken-by-the-build", "_top") === null ? "null" : "window");
  await attempt("parent.location", () => { parent.location.replace("about:blank#taken"); return "assigned"; });
""",
    "hostile-popup": """
  await attempt("open", () => window.open(PAGE + "/", "_blank") === null ? "null" : "window");
  await attempt("open-blank", () => window.open("about:blank") === null ? "null" : "window");
""",
    "hostile-form": """
  await attempt("form", () => {
    for (const target of ["_self", "_top", "_blank"]) {
      const form = document.createElement("form");
      form.method = "POST"; form.action = PAGE + "/api/save/" + RUN; form.target = target;
      form.enctype = "text/plain";
      const field = document.createElement("input"); field.name = owned; field.value = "";
      form.append(field); document.body.append(form); form.submit();
    }
    return "submitted";
  });
""",
    "hostile-token": """
  let answered = 0;
  for (let i = 0; i < 50; i++) {
    const guess = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16)).join("");
    try { await fetch(PAGE + "/api/save/" + RUN, {method: "POST", body: owned,
      headers: {"Content-Type": "application/json", "X-Tcab-Token": guess}}); answered++; } catch (error) {}
  }
  say("answered", answered);
""",
}


def reviewers_review() -> Review:
    return Review(reviewer=REVIEWER, build=None, ratings={"single-player": "scuffed"},
                  verdicts={"spin.decay": ReviewVerdict(False, "spin never decays"),
                            "scoring.display": ReviewVerdict(True)},
                  body="What the reviewer wrote: decay is broken.\n")


@pytest.fixture(scope="module")
def hostile_page(graded_carom: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReviewPage]:
    """One page session with a run per hostile build; each already reviewed by the reviewer."""
    folder = tmp_path_factory.mktemp("hostile")
    results = copy_results(graded_carom, folder / "results", {name: "placeholder" for name in ATTACKS})
    reviews = folder / "reviews"
    runs = json.loads((results / "results.json").read_text())["runs"]
    for run in runs:
        if run["run"] != RUN:
            save_review(reviews, run["run"], reviewers_review(), "first review", target=ReviewTarget.of(run))
    server = start_page(results, reviews)
    for name, attack in ATTACKS.items():  # told where the page is (the worst case), once it is known
        page = HARNESS % {"page": json.dumps(server.origin), "run": json.dumps(name), "attack": attack}
        (results / name / "site" / "index.html").write_text(page)
    yield server
    stop_page(server)


def as_written(server: ReviewPage, run: str) -> tuple[bytes, bytes]:
    history = server.reviews / run / f"{REVIEWER}.history.jsonl"
    return server.review_file(run).read_bytes(), history.read_bytes()


def attacked(server: ReviewPage, context: Any, run: str) -> tuple[Any, dict[str, str]]:
    """Open `run`'s review, let its build make its attempt; the page and what the build reported."""
    page = context.new_page()
    said: dict[str, str] = {}

    def heard(message: Any) -> None:
        found = re.match(r"tcab-attack (.*)", message.text)
        if found:
            entry = json.loads(found[1])
            said[entry["what"]] = entry["value"]

    page.on("console", heard)
    page.goto(f"{server.url}run/{run}")
    page.wait_for_selector("html[data-ready]")
    page.wait_for_function("() => true")  # the page is ready; the frame reports as it goes
    deadline_ms = ATTEMPT_S * 1000
    waited = 0.0
    while "done" not in said and waited < deadline_ms:
        page.wait_for_timeout(100)
        waited += 100
    assert "done" in said, f"the hostile build never finished its attempt: {said}"
    return page, said


def still_the_reviewers(server: ReviewPage, run: str, before: tuple[bytes, bytes]) -> None:
    assert as_written(server, run) == before
    assert b"owned" not in before[0] and b"spin never decays" in before[0]


def test_the_build_cannot_post_its_own_review(hostile_page: ReviewPage, context: Any) -> None:
    before = as_written(hostile_page, "hostile-post")
    _, said = attacked(hostile_page, context, "hostile-post")
    assert said["fetch-json"] == "TypeError" and said["fetch-no-cors"] == "TypeError" and said["xhr"] == "TypeError"
    assert said["beacon"] in ("true", "false")  # queued or not, the CSP stops it (and it is text/plain, no token)
    assert f"{hostile_page.origin}/api/save/hostile-post" in said["violations"]  # the build's own CSP stops it
    still_the_reviewers(hostile_page, "hostile-post", before)


def test_the_build_cannot_read_the_form_or_the_page(hostile_page: ReviewPage, context: Any) -> None:
    before = as_written(hostile_page, "hostile-read")
    _, said = attacked(hostile_page, context, "hostile-read")
    for reach in ("parent.document", "top.token", "parent.form", "parent.body", "localStorage", "cookie"):
        assert said[reach] == "SecurityError", (reach, said[reach])
    assert said["origin"] == "null"  # an opaque origin: nothing of the page's is its own
    assert said["fetch-page"] == "TypeError"
    still_the_reviewers(hostile_page, "hostile-read", before)


def test_the_build_cannot_take_the_top_page(hostile_page: ReviewPage, context: Any) -> None:
    before = as_written(hostile_page, "hostile-top")
    page, said = attacked(hostile_page, context, "hostile-top")
    assert said["top.location"] == "SecurityError" and said["parent.location"] == "SecurityError"
    assert said["open-top"] == "null"
    page.wait_for_timeout(500)
    assert page.url == f"{hostile_page.url}run/hostile-top" and page.locator("#review-form").count() == 1
    still_the_reviewers(hostile_page, "hostile-top", before)


def test_the_build_cannot_open_a_window(hostile_page: ReviewPage, context: Any) -> None:
    before = as_written(hostile_page, "hostile-popup")
    page, said = attacked(hostile_page, context, "hostile-popup")
    assert said["open"] == "null" and said["open-blank"] == "null"
    assert context.pages == [page]
    still_the_reviewers(hostile_page, "hostile-popup", before)


def test_the_build_cannot_submit_a_form(hostile_page: ReviewPage, context: Any) -> None:
    before = as_written(hostile_page, "hostile-form")
    page, said = attacked(hostile_page, context, "hostile-form")
    assert said["form"] == "submitted"  # it believes so; the sandbox (no allow-forms) sends nothing
    page.wait_for_timeout(500)
    assert page.url == f"{hostile_page.url}run/hostile-form" and context.pages == [page]
    still_the_reviewers(hostile_page, "hostile-form", before)


def test_the_build_cannot_guess_the_token(hostile_page: ReviewPage, context: Any) -> None:
    before = as_written(hostile_page, "hostile-token")
    _, said = attacked(hostile_page, context, "hostile-token")
    assert said["answered"] == "0"
    still_the_reviewers(hostile_page, "hostile-token", before)


def test_the_build_opened_outside_its_frame_is_still_sandboxed(hostile_page: ReviewPage, context: Any) -> None:
    page, _ = attacked(hostile_page, context, "hostile-read")
    site = page.locator("#build-frame").get_attribute("src")
    alone = context.new_page()
    said: dict[str, str] = {}
    alone.on("console", lambda message: said.update(
        {json.loads(m[1])["what"]: json.loads(m[1])["value"]} if (m := re.match(r"tcab-attack (.*)", message.text))
        else {}))
    alone.goto(str(site))
    alone.wait_for_function("() => true")
    for _ in range(int(ATTEMPT_S * 10)):
        if "done" in said:
            break
        alone.wait_for_timeout(100)
    assert said["origin"] == "null" and said["fetch-page"] == "TypeError" and said["localStorage"] == "SecurityError"


def post(server: ReviewPage, run: str, headers: dict[str, str], body: bytes | None = None) -> tuple[int, str]:
    host, port = server.url.removeprefix("http://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        payload = body if body is not None else json.dumps({"fields": {"body": "owned"}, "revision": "owned"}).encode()
        connection.request("POST", f"/api/save/{run}", body=payload, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read().decode()
    finally:
        connection.close()


def test_a_save_needs_the_token_the_origin_and_json(hostile_page: ReviewPage) -> None:
    """The server's side, asked directly (what a build whose CSP were gone could send): refused unless it
    carries the page's token, from the page's origin, as JSON; the reviewer's own save goes through."""
    run = "hostile-token"
    html = http.client.HTTPConnection(*hostile_page.url.removeprefix("http://").rstrip("/").split(":"))
    html.request("GET", f"/run/{run}")
    answer = html.getresponse()
    text = answer.read().decode()
    html.close()
    assert answer.getheader("Access-Control-Allow-Origin") is None
    assert "frame-ancestors 'none'" in (answer.getheader("Content-Security-Policy") or "")
    assert answer.getheader("X-Frame-Options") == "DENY"
    token = re.search(r'name="tcab-token" content="([^"]+)"', text)[1]  # type: ignore[index]
    good = {"Origin": hostile_page.origin, "Content-Type": "application/json", "X-Tcab-Token": token}
    before = as_written(hostile_page, run)
    refused = [
        {**good, "X-Tcab-Token": ""},
        {**good, "X-Tcab-Token": token[:-1] + ("A" if token[-1] != "A" else "B")},
        {**good, "Origin": "null"},
        {key: value for key, value in good.items() if key != "Origin"},
        {**good, "Origin": "http://127.0.0.1:1"},
        {**good, "Content-Type": "text/plain"},
        {**good, "Sec-Fetch-Site": "cross-site"},
        {**good, "Host": "evil.example:80"},
    ]
    for headers in refused:
        status, said = post(hostile_page, run, headers)
        assert status == 403 and "refused" in said, (headers, status, said)
    still_the_reviewers(hostile_page, run, before)
    status, said = post(hostile_page, run, good, b"{not json")
    assert status == 400 and "a save sends JSON" in said
    # The positive control: the page's own save, with a mistake of the reviewer's, answered in words.
    status, said = post(hostile_page, run, good, json.dumps({"fields": {"review.spin.stationary": "na",
                                                                        "body": ""}, "revision": "x"}).encode())
    assert status == 400
    assert json.loads(said)["errors"] == [
        ("`review.spin.stationary`: 'na' is not a verdict; a point passes or fails (verdicts are binary: there is no "
        "\"not applicable\")"),
        ("`body`: write a few words on the run (what you played, what you saw): a review file needs its prose body, "
        "a draft's too")]
    still_the_reviewers(hostile_page, run, before)
