/*
 * In-page runtime of one validation script, in any form DESIGN "Validation drivers" and
 * "Validation scripts of the public catalog" accept; evaluated by pytest_tcab.run.driving as a
 * single function expression, once per pass. It never rejects: every outcome comes back as
 * { form, verdicts, notes, expectations } or { form?, error, notes? }, so Python words each
 * failure once and a script's mistake can never surface as a Playwright traceback.
 *
 * Forms: an item { id, arrange, act, assert } (or a factory of one) runs in the pass Python
 * asks for: "validate" decides the verdict on the stepped clock, "record" replays arrange and
 * films act in real time. `drive(api, ttc)` and `(api) => ({ verdicts, notes })` run once
 * ("validate"), filmed whole.
 */
async ({ script, scriptName, scriptBase, handle, outputs, verdictIds, pass, tickHz, clipMs, bindings }) => {
  const where = `window.${handle}`;
  const UNMET = "ttcPreconditionUnmet";
  const RECORDING = pass === "record";

  // A value as a failure message names it: short, typed, never the whole object.
  const describe = (value) => {
    if (value === null || value === undefined) return String(value);
    if (Array.isArray(value)) return "an array";
    if (typeof value === "string") {
      const text = value.length > 60 ? `${value.slice(0, 57)}...` : value;
      return `the string ${JSON.stringify(text)}`;
    }
    if (typeof value === "object") return "an object";
    if (typeof value === "function") return "a function";
    return `the ${typeof value} ${String(value)}`;
  };

  // A value as an expectation shows it: numbers and booleans plainly, the rest as JSON.
  const show = (value) => {
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
  };

  // "Error: message" plus the stack frames inside the script's files, with their URLs
  // shortened to the names the suite author knows; the page's and Playwright's frames are noise.
  const scriptPath = script.startsWith(scriptBase) ? script.slice(scriptBase.length) : script;
  const shorten = (line) => line.split(scriptBase).join("").split(scriptPath).join(scriptName);
  const describeThrown = (thrown) => {
    if (thrown === null || typeof thrown !== "object" || typeof thrown.stack !== "string") {
      return `${describe(thrown)} (thrown as a value, not an Error)`;
    }
    const head = `${thrown.name}: ${thrown.message}`;
    const frames = thrown.stack
      .split("\n")
      .filter((line) => /^\s+at /.test(line) && line.includes(scriptBase))
      .map((line) => `    ${shorten(line.trim())}`);
    return [head, ...frames].join("\n");
  };

  // -- the check kit ---------------------------------------------------------------------------

  const same = (a, b) => {
    if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b));
    if (a !== null && b !== null && typeof a === "object" && typeof b === "object") return show(a) === show(b);
    return a === b;
  };
  const number = (value) => typeof value === "number" && !Number.isNaN(value);
  // Each matcher: (actual, ...operands) -> [held, what was required]; `ok` has no value pair.
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
  const makeCheck = (id, silent = false) => {
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
  };
  const ttc = { checkOne: (verdictId) => makeCheck(String(verdictId)) };

  // -- the api ---------------------------------------------------------------------------------

  const kinds = new Map(outputs.map((output) => [output.id, output.kind]));
  const images = outputs.filter((output) => output.kind === "image").map((o) => JSON.stringify(o.id));
  const wantsClip = outputs.some((output) => output.kind === "video");
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // The screencast opens on what the compositor drew last, which is the page as loaded when the
  // state to film was posed within one frame: filming starts once two frames have been drawn
  // (bounded, for a page that holds its frames back).
  const startClip = async () => {
    const drawn = new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    await Promise.race([drawn, pause(250)]);
    await window[bindings.clip]("start");
  };
  const target = () => (handle === null ? undefined : window[handle]);
  const phase = { current: "drive", item: false };
  const budget = { remaining: clipMs };
  class ClipDone extends Error {}

  const method = (op, call) => {
    const host = target();
    if (handle === null) throw new Error(`${call}: the case declares no [instrumentation] handle, so there is no debug API to call`);
    if (host === undefined || host === null || typeof host[op] !== "function") {
      const found = host === undefined || host === null ? `${where} is ${String(host)}` : `it is ${describe(host[op])}`;
      throw new Error(`${call}: ${where}.${op} is not a function (${found})`);
    }
    return (...args) => host[op](...args);
  };
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
      await window[bindings.screenshot](outputId);
    },
    async call(op, ...args) {
      return await method(op, `api.call(${JSON.stringify(op)})`)(...args);
    },
    // reset, snapshot and step return what the build returns, as they did when they were
    // forwarded: a script of the first form may read a snapshot without awaiting it.
    reset(options) {
      const result = method("reset", "api.reset()")(options);
      // The build's reset may take its clock back; the record pass keeps playing act in real time.
      if (!(RECORDING && phase.current === "act")) return result;
      const clock = method("setAutoStep", "api.reset()");
      return Promise.resolve(result).then(async (value) => {
        await clock(true);
        return value;
      });
    },
    snapshot() {
      return method("snapshot", "api.snapshot()")();
    },
    step(value) {
      instant("api.step()");
      return method("step", "api.step()")(value);
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
      return await method("step", call)(units);
    },
    async until(predicate, { max, poll = 1 } = {}) {
      const call = "api.until()";
      instant(call);
      if (typeof predicate !== "function") throw new Error(`${call}: the predicate is ${describe(predicate)}, not a function`);
      const limit = amount(max, `${call}: { max: ${show(max)} }`);
      const chunk = amount(poll, `${call}: { poll: ${show(poll)} }`);
      if (chunk === 0) throw new Error(`${call}: { poll: 0 } would never advance`);
      const read = method("snapshot", call);
      let snap = await read();
      let spent = 0;
      if (RECORDING) {
        // The game runs itself: poll it on the same cadence for as long as max lasts in real time.
        const began = performance.now();
        while (!predicate(snap) && spent < limit) {
          await realTime(Math.min(chunk, limit - spent));
          spent = Math.min(limit, (performance.now() - began) / unitMs);
          snap = await read();
        }
        return { snap, hit: Boolean(predicate(snap)), spent };
      }
      const step = method("step", call);
      while (!predicate(snap) && spent < limit) {
        const next = Math.min(chunk, limit - spent);
        await step(next);
        spent += next;
        snap = await read();
      }
      return { snap, hit: Boolean(predicate(snap)), spent };
    },
    async pixel(u, v) {
      const call = `api.pixel(${show(u)}, ${show(v)})`;
      if (![u, v].every((f) => typeof f === "number" && f >= 0 && f <= 1)) {
        throw new Error(`${call}: u and v are fractions of the canvas, from 0 to 1`);
      }
      const canvases = [...document.querySelectorAll("canvas")];
      const canvas = canvases
        .map((element) => [element, element.getBoundingClientRect()])
        .sort(([, a], [, b]) => b.width * b.height - a.width * a.height)[0];
      if (canvas === undefined || canvas[1].width * canvas[1].height === 0) {
        throw new Error(`${call}: the page shows no <canvas> to sample`);
      }
      const rect = canvas[1];
      const x = Math.min(rect.left + u * rect.width, rect.right - 1);
      const y = Math.min(rect.top + v * rect.height, rect.bottom - 1);
      return await window[bindings.pixel](Math.max(0, Math.floor(x)), Math.max(0, Math.floor(y)));
    },
    async probe(opNames = []) {
      const host = target();
      const ops = {};
      for (const name of opNames) ops[name] = host === undefined || host === null ? "undefined" : typeof host[name];
      const version = host === undefined || host === null ? null : host.version ?? null;
      return { version, ops };
    },
    async audio() {
      const read = window[bindings.audio];
      if (typeof read !== "function") {
        throw new Error("api.audio(): this page was opened without the Web Audio log (pytest_tcab.run.driving.instrument)");
      }
      return read();
    },
  };
  // Anything else is the build's own debug API, looked up on every access so a build that
  // replaces its handle (on reset, say) is followed.
  const scriptApi = new Proxy(api, {
    get(_, prop) {
      if (Object.hasOwn(api, prop)) return api[prop];
      const host = target();
      const value = host === undefined || host === null ? undefined : host[prop];
      return typeof value === "function" ? value.bind(host) : value;
    },
    has(_, prop) {
      const host = target();
      return Object.hasOwn(api, prop) || (host !== undefined && host !== null && prop in Object(host));
    },
  });

  // -- arrange must be instant -----------------------------------------------------------------

  // While arrange runs, a timer or frame callback the script itself asks for is a real wait:
  // it is refused where it is called, and remembered in case the script swallows the error.
  const guardTimers = (violations) => {
    const saved = {
      setTimeout: window.setTimeout,
      setInterval: window.setInterval,
      requestAnimationFrame: window.requestAnimationFrame,
    };
    for (const [name, original] of Object.entries(saved)) {
      window[name] = function (...args) {
        const caller = (new Error().stack || "").split("\n")[2] || "";
        if (caller.includes(scriptBase)) {
          const at = shorten(caller.trim().replace(/^at /, ""));
          const message = `arrange() must be instant, but it waited in real time: ${name}() called `
            + `${at.includes("(") ? at.replace(/^.*\(/, "at ").replace(/\)$/, "") : `at ${at}`}; pose the state `
            + "with control ops and move anything that takes time into act()";
          violations.push(message);
          throw new Error(message);
        }
        return original.apply(window, args);
      };
    }
    return () => Object.assign(window, saved);
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

  const FORMS = "an item { id, arrange(api), act(api), assert(api, check) }, a function returning one, "
    + "drive(api, ttc), or (api) => ({ verdicts, notes })";

  const itemProblem = (item, from) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      return `${from} is ${describe(item)}; expected ${FORMS}`;
    }
    const missing = ["arrange", "act"].filter((name) => typeof item[name] !== "function");
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

  // A default function of two parameters is drive(api, ttc); an async one or one of one
  // parameter is the first form; one of none is called: an item factory returns the item, a
  // first-form driver its promise.
  const formOf = (module) => {
    // Called through the module, so stack frames read `Module.default` as the author wrote it.
    if (typeof module.drive === "function") return { kind: "drive", run: (api, kit) => module.drive(api, kit) };
    if (!("default" in module)) return { error: `${scriptName} exports neither a default nor drive; expected ${FORMS}` };
    const exported = module.default;
    if (typeof exported === "function") {
      if (exported.length >= 2) return { kind: "drive", run: (api, kit) => module.default(api, kit) };
      if (exported.length === 1 || exported.constructor.name === "AsyncFunction") {
        return { kind: "verdicts", run: (api) => module.default(api) };
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
    const problem = itemProblem(exported, `the default export of ${scriptName}`);
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

  const unmet = (form, thrown) => ({
    form,
    verdicts: Object.fromEntries(verdictIds.map((id) => [id, null])),
    notes: `precondition unmet: ${thrown.message ?? String(thrown)}`,
    expectations: [],
  });

  const failed = (form, thrown, during) => {
    if (thrown !== null && typeof thrown === "object" && thrown[UNMET]) return unmet(form, thrown);
    return { form, error: `${during} threw ${describeThrown(thrown)}` };
  };

  // -- run -------------------------------------------------------------------------------------

  if (handle !== null && (target() === undefined || target() === null)) {
    return { error: `${where} is ${String(target())}: the build does not install its debug API` };
  }
  let module;
  try {
    module = await import(script);
  } catch (thrown) {
    return { error: `could not import the driver ${scriptName}: ${describeThrown(thrown)}` };
  }
  const form = formOf(module);
  if (form.error || form.verdicts) return form;

  if (form.kind !== "item") {
    // One pass, filmed whole: the script's own clock calls are what it gets.
    if (wantsClip) await startClip();
    try {
      if (form.kind === "verdicts") return judge(form.kind, await form.run(scriptApi));
      let check;
      const opened = { checkOne: (id) => (check = ttc.checkOne(id)) };
      try {
        return judge(form.kind, await form.run(scriptApi, opened));
      } catch (thrown) {
        if (thrown instanceof VerdictStop && check !== undefined) return judge(form.kind, check.verdict());
        throw thrown;
      }
    } catch (thrown) {
      return failed(form.kind, thrown, "the driver");
    } finally {
      if (wantsClip) await window[bindings.clip]("stop");
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
    await method("setAutoStep", "the item runtime")(RECORDING);
  } catch (thrown) {
    return { form: "item", error: `${thrown.message}; an item script needs the debug API's clock switch `
      + `setAutoStep(auto): false for the stepped validate pass, true for the real-time record pass` };
  }
  phase.current = "act";
  if (RECORDING) {
    budget.remaining = Number(item.clipMs) > 0 ? Number(item.clipMs) : clipMs;
    if (wantsClip) await startClip();
    try {
      await item.act(scriptApi, check);
    } catch (thrown) {
      if (!(thrown instanceof ClipDone)) return failed("item", thrown, "act() in the record pass");
    } finally {
      if (wantsClip) await window[bindings.clip]("stop");
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
