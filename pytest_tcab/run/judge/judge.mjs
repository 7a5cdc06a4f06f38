/*
 * The judge runtime: validation scripts run here, in Node, outside the browser (DESIGN "Trust
 * model", "Validation drivers"). pytest_tcab.run.judge.runtime starts one process per session.
 *
 * The main thread relays JSON lines: Python writes `run`, `answer` and `cancel` on stdin; the
 * judge writes `ready`, `cross` (one api member that needs the page) and `done` on stdout. Each run gets
 * a worker thread of its own, so every script (and the helpers it imports) starts from a fresh
 * module graph, and ends with it. The worker holds the check kit, the expectations and the
 * verdict decision: what reaches the page is one crossing at a time, which Python turns into one
 * call of the build's handle (or the harness's own screenshot, input and clock), never a script,
 * a path, a verdict id, a label or an expected value.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker } from "node:worker_threads";

// -- the main thread: Python <-> one worker per run --------------------------------------------

function relay() {
  const workers = new Map();
  const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const finish = (run, result) => {
    const worker = workers.get(run);
    if (worker === undefined) return;
    workers.delete(run);
    send({ type: "done", run, result });
    worker.terminate();
  };
  // A worker is started before it is needed, so a script's run does not wait for one to boot;
  // each runs one script only, then ends: every script gets a fresh module graph.
  const spawn = () => {
    const worker = new Worker(fileURLToPath(import.meta.url), {
      stdout: true, // a script's console output must never mix with the protocol on stdout
      stderr: true,
    });
    worker.stdout.on("data", (chunk) => process.stderr.write(chunk));
    worker.stderr.on("data", (chunk) => process.stderr.write(chunk));
    worker.on("error", () => {}); // reported by the run that uses it (below)
    worker.on("exit", () => { worker.gone = true; });
    worker.unref();
    return worker;
  };
  let spare = spawn();
  const start = (spec) => {
    const worker = spare.gone ? spawn() : spare;
    spare = spawn();
    workers.set(spec.run, worker);
    worker.ref();
    worker.on("message", (message) => {
      if (message.type === "cross") send({ ...message, run: spec.run });
      else finish(spec.run, message.result);
    });
    worker.on("error", (thrown) => finish(spec.run, {
      error: bound(`the script failed outside what it awaited: ${describeThrown(thrown, spec.roots)}`),
    }));
    worker.on("exit", () => finish(spec.run, { error: "the judge's worker ended before the script returned" }));
    worker.postMessage({ type: "spec", spec });
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    if (message.type === "run") start(message);
    else if (message.type === "answer") workers.get(message.run)?.postMessage(message);
    else if (message.type === "cancel") {
      const worker = workers.get(message.run);
      workers.delete(message.run);
      worker?.terminate();
    }
  });
  lines.on("close", () => process.exit(0));
  send({ type: "ready", node: process.version });
}

// -- describing values and errors ---------------------------------------------------------------

// Every text of an outcome is cut to its head and tail before it crosses to Python, the way
// pytest_tcab.bounded cuts it there: a script's 20 MB notes never fill the pipe.
const TEXT_LIMIT = 64 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
function bound(text) {
  if (text.length * 3 <= TEXT_LIMIT) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= TEXT_LIMIT) return text;
  const keep = Math.max(TEXT_LIMIT - `\n[${bytes.length} bytes truncated]\n`.length, 2);
  const head = decoder.decode(bytes.subarray(0, keep - (keep >> 1))).replace(/\uFFFD$/, "");
  const tail = decoder.decode(bytes.subarray(bytes.length - (keep >> 1))).replace(/^\uFFFD/, "");
  const dropped = bytes.length - encoder.encode(head).length - encoder.encode(tail).length;
  return `${head}\n[${dropped} bytes truncated]\n${tail}`;
}
function boundAll(value) {
  if (typeof value === "string") return bound(value);
  if (Array.isArray(value)) return value.map(boundAll);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [bound(key), boundAll(entry)]));
}

// A value as a failure message names it: short, typed, never the whole object.
function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    const text = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return `the string ${JSON.stringify(text)}`;
  }
  if (typeof value === "object") return "an object";
  if (typeof value === "function") return "a function";
  return `the ${typeof value} ${String(value)}`;
}

// A value as an expectation shows it: numbers and booleans plainly, the rest as JSON.
function show(value) {
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value);
  }
  let text;
  try {
    text = JSON.stringify(value);
  } catch {
    text = String(value);
  }
  text = text === undefined ? String(value) : text;
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

// Paths of the snapshot (and the stripped copies of .ts scripts) as the suite author knows
// them: `roots` maps each absolute prefix to what replaces it, longest first.
function shorten(text, roots) {
  let shown = text;
  for (const [prefix, name] of roots) {
    shown = shown.split(pathToFileURL(prefix).href).join(name).split(prefix).join(name);
  }
  return shown;
}

const ownFrame = (line, roots) => roots.some(([prefix]) => line.includes(prefix));

// "Error: message" plus the stack frames inside the script's own files; Node's and the
// judge's frames are noise to the author.
function describeThrown(thrown, roots) {
  if (thrown === null || typeof thrown !== "object" || typeof thrown.stack !== "string") {
    return `${describe(thrown)} (thrown as a value, not an Error)`;
  }
  const head = shorten(`${thrown.name}: ${thrown.message}`, roots);
  const frames = thrown.stack
    .split("\n")
    .filter((line) => /^\s+at /.test(line) && ownFrame(line, roots))
    .map((line) => `    ${shorten(line.trim().replace(/^at async /, "at "), roots)}`);
  // Node prints where a module failed to link above its stack ("file:///x.mjs:1"): keep it.
  const linked = thrown.stack.split("\n")[0];
  if (!frames.length && /^file:\/\/.*:\d+$/.test(linked) && ownFrame(linked, roots)) {
    frames.push(`    at ${shorten(linked, roots)}`);
  }
  return [head, ...frames].join("\n");
}

// Where a module that does not parse breaks: V8 gives an import's SyntaxError no location, so
// each of the script's own files is checked (`node --check`) until one names its line.
function syntaxLocation(files, roots) {
  for (const file of files) {
    try {
      execFileSync(process.execPath, ["--check", file], { stdio: ["ignore", "ignore", "pipe"], timeout: 20_000 });
    } catch (failed) {
      const first = String(failed.stderr ?? "").split("\n")[0];
      if (/:\d+$/.test(first)) return shorten(first, roots);
    }
  }
  return null;
}

// The script and the modules it imports by relative path, breadth first (for syntaxLocation).
function ownModules(script) {
  const seen = [script];
  for (let i = 0; i < seen.length && i < 50; i += 1) {
    let source;
    try {
      source = readFileSync(seen[i], "utf8");
    } catch {
      continue;
    }
    for (const [, specifier] of source.matchAll(/(?:import|export)[^'"]*?from\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      const path = fileURLToPath(new URL(specifier, pathToFileURL(seen[i])));
      if (!seen.includes(path)) seen.push(path);
    }
  }
  return seen;
}

// -- the check kit -------------------------------------------------------------------------------

const same = (a, b) => {
  if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") return show(a) === show(b);
  return a === b;
};
const number = (value) => typeof value === "number" && !Number.isNaN(value);
// Each matcher: (actual, ...operands) -> [held, what was required]; `Ok` has no value pair.
const MATCHERS = {
  Ok: (value) => [Boolean(value), undefined],
  Eq: (actual, expected) => [same(actual, expected), show(expected)],
  Ne: (actual, other) => [!same(actual, other), `not ${show(other)}`],
  Gt: (actual, bound) => [number(actual) && actual > bound, `> ${show(bound)}`],
  Ge: (actual, bound) => [number(actual) && actual >= bound, `>= ${show(bound)}`],
  Lt: (actual, bound) => [number(actual) && actual < bound, `< ${show(bound)}`],
  Le: (actual, bound) => [number(actual) && actual <= bound, `<= ${show(bound)}`],
  Close: (actual, expected, tolerance) => [
    number(actual) && number(tolerance) && Math.abs(actual - expected) <= tolerance,
    `${show(expected)} ± ${show(tolerance)}`,
  ],
};

// Thrown by a failed assert<Op>: it ends the script with the verdict decided so far.
class VerdictStop extends Error {}

// One verdict's check: expect<Op> records and goes on, assert<Op> records and stops on a
// failure. A silent check (the record pass's) records nothing: that pass decides nothing.
function makeCheck(id, silent = false) {
  const assertions = [];
  const check = { id, assertions, verdict: () => ({ verdicts: { [id]: assertions } }) };
  for (const [name, matcher] of Object.entries(MATCHERS)) {
    const record = (label, actual, ...operands) => {
      if (silent) return true;
      const [held, expected] = name === "Ok" ? matcher(actual) : matcher(actual, ...operands);
      const assertion = { label: String(label ?? ""), pass: held };
      if (expected !== undefined) {
        assertion.expected = expected;
        assertion.actual = show(actual);
      }
      assertions.push(assertion);
      return held;
    };
    check[`expect${name}`] = record;
    check[`assert${name}`] = (...args) => {
      const held = record(...args);
      if (!held) throw new VerdictStop(`${args[0]} did not hold`);
      return held;
    };
  }
  return check;
}

// -- one script, in a worker of its own ---------------------------------------------------------

const UNMET = "ttcPreconditionUnmet";
const FORMS = "an item { id, arrange(api), act(api), assert(api, check) }, a function returning one, "
  + "drive(api, ttc), or (api) => ({ verdicts, notes })";
// Kept before any script runs: a script may replace the globals, the runtime never uses its copies.
const timers = { setTimeout, setInterval, setImmediate };
const pause = (ms) => new Promise((resolve) => timers.setTimeout(resolve, ms));

async function runScript(spec) {
  const { script, name, roots, handle, outputs, verdictIds, pass, tickHz, clipMs } = spec;
  const RECORDING = pass === "record";
  const thrownText = (thrown) => describeThrown(thrown, roots);

  // One crossing: a request to Python, answered once the page (or the harness) has done it.
  const waiting = new Map();
  let sequence = 0;
  parentPort.on("message", (message) => {
    const settle = waiting.get(message.seq);
    waiting.delete(message.seq);
    settle?.(message);
  });
  const cross = (member, args) => new Promise((resolve, reject) => {
    sequence += 1;
    waiting.set(sequence, (answer) => (answer.error === undefined ? resolve(answer.value) : reject(new Error(answer.error))));
    parentPort.postMessage({ type: "cross", seq: sequence, member, args });
  });

  const where = `window.${handle}`;
  // A handle call: what the build returned, JSON-cloned; its faults worded for the author.
  const handleCall = async (member, op, args, call) => {
    if (handle === null) {
      throw new Error(`${call}: the case declares no [instrumentation] handle, so there is no debug API to call`);
    }
    while (args.length && args[args.length - 1] === undefined) args.pop(); // reset() means reset(), not reset(null)
    const answer = await cross(member, [op, args]);
    if (answer.missing !== undefined) throw new Error(`${call}: ${where}.${op} is not a function (${where} is ${answer.missing})`);
    if (answer.notFunction !== undefined) {
      throw new Error(`${call}: ${where}.${answer.op ?? op} is not a function (it is ${answer.notFunction})`);
    }
    if (answer.threw !== undefined) throw new Error(`${call}: ${where}.${answer.op ?? op}(...) threw ${answer.threw}`);
    if (answer.refused !== undefined) throw new Error(`${call}: ${where}.${op}(...) answered ${answer.refused}`);
    if (answer.undefined) return undefined;
    try {
      return JSON.parse(answer.json);
    } catch {
      throw new Error(`${call}: ${where}.${op}(...) answered something that is not JSON`);
    }
  };

  const kinds = new Map(outputs.map((output) => [output.id, output.kind]));
  const images = outputs.filter((output) => output.kind === "image").map((output) => JSON.stringify(output.id));
  const wantsClip = outputs.some((output) => output.kind === "video");
  const phase = { current: "drive", item: false };
  const budget = { remaining: clipMs };
  class ClipDone extends Error {}

  const instant = (call) => {
    if (phase.current === "arrange") {
      throw new Error(`${call} was called from arrange(), which must be instant: pose the state with control ops `
        + "and move anything that takes time into act(), the phase that is timed and filmed");
    }
  };
  // An amount of the case's clock unit: whole ticks with [instrumentation] tick_hz, else seconds.
  const amount = (value, call) => {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new Error(`${call}: expected a number of ${tickHz ? "ticks" : "seconds"} >= 0, got ${describe(value)}`);
    }
    if (tickHz && !Number.isInteger(value)) {
      throw new Error(`${call}: the case steps whole ticks ([instrumentation] tick_hz = ${tickHz}); `
        + `${value} is not a whole number of ticks`);
    }
    return value;
  };
  const unitMs = tickHz ? 1000 / tickHz : 1000;
  // The record pass plays act in real time and stops filming once its clip budget is spent.
  const realTime = async (units) => {
    const ms = units * unitMs;
    if (budget.remaining <= 0) throw new ClipDone();
    const spent = Math.min(ms, budget.remaining);
    budget.remaining -= ms;
    await pause(spent);
    if (budget.remaining <= 0) throw new ClipDone();
  };

  const api = {
    async screenshot(outputId) {
      const kind = kinds.get(outputId);
      const call = `api.screenshot(${JSON.stringify(outputId)})`;
      if (kind === undefined) {
        const declared = images.length ? `its image outputs are ${images.join(", ")}` : "it declares no image output";
        throw new Error(`${call}: this script declares no output ${JSON.stringify(outputId)}; ${declared}`);
      }
      if (kind !== "image") {
        throw new Error(`${call}: ${JSON.stringify(outputId)} is a ${kind} output, a clip the runtime records; `
          + "screenshot() takes an image output");
      }
      if (phase.item && !RECORDING) return; // an item's stills come from its record pass
      await cross("screenshot", [outputId]);
    },
    async call(op, ...args) {
      return await handleCall("call", op, args, `api.call(${JSON.stringify(op)})`);
    },
    async reset(options) {
      const value = await handleCall("call", "reset", [options], "api.reset()");
      // The build's reset may take its clock back; the record pass keeps playing act in real time.
      if (RECORDING && phase.current === "act") await handleCall("call", "setAutoStep", [true], "api.reset()");
      return value;
    },
    async snapshot() {
      return await handleCall("call", "snapshot", [], "api.snapshot()");
    },
    async step(value) {
      instant("api.step()");
      return await handleCall("call", "step", [value], "api.step()");
    },
    async wait(ms) {
      instant("api.wait()");
      await pause(Number(ms) || 0);
    },
    async settle(ms) {
      instant("api.settle()");
      await pause(Number(ms) || 0);
    },
    async advance(value) {
      const call = `api.advance(${show(value)})`;
      instant(call);
      const units = amount(value, call);
      if (RECORDING) return await realTime(units);
      return await handleCall("call", "step", [units], call);
    },
    async until(predicate, { max, poll = 1 } = {}) {
      const call = "api.until()";
      instant(call);
      if (typeof predicate !== "function") throw new Error(`${call}: the predicate is ${describe(predicate)}, not a function`);
      const limit = amount(max, `${call}: { max: ${show(max)} }`);
      const chunk = amount(poll, `${call}: { poll: ${show(poll)} }`);
      if (chunk === 0) throw new Error(`${call}: { poll: 0 } would never advance`);
      let snap = await handleCall("call", "snapshot", [], call);
      let spent = 0;
      if (RECORDING) {
        // The game runs itself: poll it on the same cadence for as long as max lasts in real time.
        const began = performance.now();
        while (!predicate(snap) && spent < limit) {
          await realTime(Math.min(chunk, limit - spent));
          spent = Math.min(limit, (performance.now() - began) / unitMs);
          snap = await handleCall("call", "snapshot", [], call);
        }
        return { snap, hit: Boolean(predicate(snap)), spent };
      }
      while (!predicate(snap) && spent < limit) {
        const next = Math.min(chunk, limit - spent);
        snap = await handleCall("stepSnapshot", "step", [next], call); // one crossing: step, then snapshot
        spent += next;
      }
      return { snap, hit: Boolean(predicate(snap)), spent };
    },
    async pixel(u, v) {
      const call = `api.pixel(${show(u)}, ${show(v)})`;
      if (![u, v].every((f) => typeof f === "number" && f >= 0 && f <= 1)) {
        throw new Error(`${call}: u and v are fractions of the canvas, from 0 to 1`);
      }
      const answer = await cross("pixel", [u, v]);
      if (answer.missing) throw new Error(`${call}: the page shows no <canvas> to sample`);
      return answer.rgb;
    },
    async probe(opNames = []) {
      const names = Array.isArray(opNames) ? opNames.map(String) : [];
      if (handle === null) return { version: null, ops: Object.fromEntries(names.map((op) => [op, "undefined"])) };
      return await cross("probe", [names]);
    },
    async audio() {
      return await cross("audio", []);
    },
    async userKey(code) {
      if (typeof code !== "string" || !code) throw new Error(`api.userKey(${show(code)}): expected a key name such as "Space"`);
      await cross("userKey", [code]);
    },
    async userClick(x, y) {
      if (![x, y].every((n) => typeof n === "number" && Number.isFinite(n))) {
        throw new Error(`api.userClick(${show(x)}, ${show(y)}): expected viewport pixels x, y`);
      }
      await cross("userClick", [x, y]);
    },
  };
  // Anything else is the build's own debug API (none without a handle): a method whose call
  // crosses into the page. Whether the handle has it is for `probe` to ask.
  const scriptApi = new Proxy(api, {
    get(_, prop) {
      if (Object.hasOwn(api, prop)) return api[prop];
      if (handle === null || typeof prop !== "string" || prop === "then" || prop === "toJSON") return undefined;
      return (...args) => handleCall("call", prop, args, `api.${prop}()`);
    },
  });

  // The clip opens on what the page shows once the state to film was posed (see Python's clipStart).
  const clip = (what) => cross(what, []);

  // -- arrange must be instant -----------------------------------------------------------------

  // While arrange runs, a timer the script itself asks for is a real wait: it is refused where
  // it is called, and remembered in case the script swallows the error.
  const guardTimers = (violations) => {
    for (const [timer, original] of Object.entries(timers)) {
      globalThis[timer] = function guarded(...args) {
        const caller = (new Error().stack || "").split("\n")[2] || "";
        if (ownFrame(caller, roots)) {
          const at = shorten(caller.trim().replace(/^at /, ""), roots);
          const message = `arrange() must be instant, but it waited in real time: ${timer}() called `
            + `${at.includes("(") ? at.replace(/^.*\(/, "at ").replace(/\)$/, "") : `at ${at}`}; pose the state `
            + "with control ops and move anything that takes time into act()";
          violations.push(message);
          throw new Error(message);
        }
        return original(...args);
      };
    }
    return () => Object.assign(globalThis, timers);
  };

  const arrange = async (item) => {
    const violations = [];
    const restore = guardTimers(violations);
    phase.current = "arrange";
    try {
      await item.arrange(scriptApi);
    } finally {
      restore();
    }
    if (violations.length) throw new Error(violations[0]);
  };

  // -- forms -----------------------------------------------------------------------------------

  const itemProblem = (item, from) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      return `${from} is ${describe(item)}; expected ${FORMS}`;
    }
    const missing = ["arrange", "act"].filter((key) => typeof item[key] !== "function");
    if (typeof item.id !== "string" || !item.id) missing.unshift("id");
    if (item.assert !== undefined && typeof item.assert !== "function") missing.push("assert");
    if (missing.length) {
      return `${from} is an item without a valid ${missing.join(", ")}; expected `
        + "{ id: \"<verdict id>\", arrange(api), act(api), assert(api, check) } (assert optional)";
    }
    if (!verdictIds.includes(item.id)) {
      return `the item's id is ${JSON.stringify(item.id)}, but the manifest has this script back `
        + verdictIds.map((id) => JSON.stringify(id)).join(", ");
    }
    return null;
  };

  const unmet = (form, thrown) => ({
    form,
    verdicts: Object.fromEntries(verdictIds.map((id) => [id, null])),
    notes: `precondition unmet: ${thrown.message ?? String(thrown)}`,
    expectations: [],
  });

  const failed = (form, thrown, during) => {
    if (thrown !== null && typeof thrown === "object" && thrown[UNMET]) return unmet(form, thrown);
    return { form, error: `${during} threw ${thrownText(thrown)}` };
  };

  // A default function of two parameters is drive(api, ttc); an async one or one of one
  // parameter is the first form; one of none is called: an item factory returns the item, a
  // first-form driver its promise.
  const formOf = (module) => {
    // Called through the module, so stack frames read `Module.default` as the author wrote it.
    if (typeof module.drive === "function") return { kind: "drive", run: (scripted, kit) => module.drive(scripted, kit) };
    if (!("default" in module)) return { error: `${name} exports neither a default nor drive; expected ${FORMS}` };
    const exported = module.default;
    if (typeof exported === "function") {
      if (exported.length >= 2) return { kind: "drive", run: (scripted, kit) => module.default(scripted, kit) };
      if (exported.length === 1 || exported.constructor.name === "AsyncFunction") {
        return { kind: "verdicts", run: (scripted) => module.default(scripted) };
      }
      let made;
      try {
        made = exported(scriptApi);
      } catch (thrown) {
        return failed("verdicts", thrown, "the default export");
      }
      if (made !== null && typeof made === "object" && typeof made.then === "function") {
        return { kind: "verdicts", run: () => made };
      }
      const problem = itemProblem(made, "what the default export (a function of no parameters) returned");
      return problem ? { error: problem } : { kind: "item", item: made };
    }
    const problem = itemProblem(exported, `the default export of ${name}`);
    return problem ? { error: problem } : { kind: "item", item: exported };
  };

  // A verdict value: true, false, null, or the expectations a check or asserter recorded.
  const decide = (id, value, expectations) => {
    if (value === true || value === false || value === null) return value;
    if (Array.isArray(value)) {
      for (const [i, record] of value.entries()) {
        if (record === null || typeof record !== "object" || typeof record.pass !== "boolean") {
          return { error: `the driver's verdicts[${JSON.stringify(id)}][${i}] is ${describe(record)}; expected `
            + "an expectation { label, pass } as a check or asserter records it" };
        }
        expectations.push({ label: String(record.label ?? ""), pass: record.pass,
          ...(record.expected !== undefined ? { expected: String(record.expected), actual: String(record.actual) } : {}) });
      }
      return value.length === 0 ? null : value.every((record) => record.pass);
    }
    return { error: `the driver's verdicts[${JSON.stringify(id)}] is ${describe(value)}; expected true (pass), `
      + "false (fail), null (precondition unmet) or the expectations a check recorded" };
  };

  const judge = (form, result) => {
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      return { form, error: `the driver returned ${describe(result)}; expected an object { verdicts, notes }` };
    }
    const { verdicts } = result;
    let { notes } = result;
    if (notes !== null && typeof notes === "object" && !Array.isArray(notes)) {
      notes = Object.entries(notes).map(([id, text]) => (verdictIds.length > 1 ? `${id}: ${text}` : String(text))).join("\n");
    }
    if (notes !== undefined && notes !== null && typeof notes !== "string") {
      return { form, error: `the driver's notes is ${describe(notes)}; expected a string` };
    }
    const shown = typeof notes === "string" ? notes : "";
    if (verdicts === null || typeof verdicts !== "object" || Array.isArray(verdicts)) {
      return { form, error: `the driver's verdicts is ${describe(verdicts)}; expected an object mapping verdict ids `
        + "to true, false, null or a check's expectations", notes: shown };
    }
    const decided = {};
    const expectations = [];
    for (const [id, value] of Object.entries(verdicts)) {
      const verdict = decide(id, value, expectations);
      if (verdict !== null && typeof verdict === "object") return { form, ...verdict, notes: shown };
      decided[id] = verdict;
    }
    const empty = Object.values(verdicts).some((value) => Array.isArray(value) && value.length === 0);
    const why = empty ? "the script recorded no expectations, so nothing decided its verdict" : "";
    return { form, verdicts: decided, notes: shown || why, expectations };
  };

  // -- run -------------------------------------------------------------------------------------

  if (handle !== null) {
    const present = await cross("present", []);
    if (present !== true) return { error: `${where} is ${present}: the build does not install its debug API` };
  }
  let module;
  try {
    module = await import(pathToFileURL(script).href);
  } catch (thrown) {
    if (thrown?.code === "ERR_MODULE_NOT_FOUND" && thrown.url === pathToFileURL(script).href) {
      return { error: `could not import the driver ${name}: there is no such file` };
    }
    let detail = thrownText(thrown);
    if (thrown instanceof SyntaxError && !detail.includes("\n")) {
      const at = syntaxLocation(ownModules(script), roots);
      if (at !== null) detail += `\n    at ${at}`;
    }
    return { error: `could not import the driver ${name}: ${detail}` };
  }
  const form = formOf(module);
  if (form.error || form.verdicts) return form;

  if (form.kind !== "item") {
    // One pass, filmed whole: the script's own clock calls are what it gets.
    if (wantsClip) await clip("clipStart");
    try {
      if (form.kind === "verdicts") return judge(form.kind, await form.run(scriptApi));
      let check;
      const opened = { checkOne: (id) => (check = makeCheck(String(id))) };
      try {
        return judge(form.kind, await form.run(scriptApi, opened));
      } catch (thrown) {
        if (thrown instanceof VerdictStop && check !== undefined) return judge(form.kind, check.verdict());
        throw thrown;
      }
    } catch (thrown) {
      return failed(form.kind, thrown, "the driver");
    } finally {
      if (wantsClip) await clip("clipStop");
    }
  }

  const { item } = form;
  phase.item = true;
  const check = makeCheck(item.id, RECORDING);
  try {
    await arrange(item);
  } catch (thrown) {
    return failed("item", thrown, "arrange()");
  }
  // The clock is the runtime's: stepped while the verdict is decided, the build's own on film.
  try {
    await handleCall("call", "setAutoStep", [RECORDING], "the item runtime");
  } catch (thrown) {
    return { form: "item", error: `${thrown.message}; an item script needs the debug API's clock switch `
      + "setAutoStep(auto): false for the stepped validate pass, true for the real-time record pass" };
  }
  phase.current = "act";
  if (RECORDING) {
    budget.remaining = Number(item.clipMs) > 0 ? Number(item.clipMs) : clipMs;
    if (wantsClip) await clip("clipStart");
    try {
      await item.act(scriptApi, check);
    } catch (thrown) {
      if (!(thrown instanceof ClipDone)) return failed("item", thrown, "act() in the record pass");
    } finally {
      if (wantsClip) await clip("clipStop");
    }
    return { form: "item", verdicts: {}, notes: "", expectations: [] };
  }
  try {
    await item.act(scriptApi, check);
    if (item.assert !== undefined) {
      phase.current = "assert";
      await item.assert(scriptApi, check);
    }
  } catch (thrown) {
    if (!(thrown instanceof VerdictStop)) return failed("item", thrown, `${phase.current}()`);
  }
  return judge("item", check.verdict());
}

// Last, once every constant above is initialised: the main thread relays, a worker runs its script.
if (isMainThread) {
  relay();
} else {
  parentPort.once("message", async ({ spec }) => {
    parentPort.postMessage({ type: "done", result: boundAll(await runScript(spec)) });
  });
}
