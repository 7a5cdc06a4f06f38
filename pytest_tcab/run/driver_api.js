/*
 * In-page glue that runs one validation driver (DESIGN "Validation drivers"); evaluated by
 * pytest_tcab.driving.run_driver as a single function expression. It never rejects: every
 * outcome comes back as { verdicts, notes } or { error, notes? }, so Python words each failure
 * once and a driver's mistake can never surface as a Playwright traceback.
 */
async ({ driverUrl, driverName, handle, outputs, screenshotBinding }) => {
  const where = `window.${handle}`;

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

  // "Error: message" plus the stack frames inside the driver file, with its URL shortened
  // to the name the suite author knows; the page's and Playwright's frames are noise to them.
  const describeThrown = (thrown) => {
    if (thrown === null || typeof thrown !== "object" || typeof thrown.stack !== "string") {
      return `${describe(thrown)} (thrown as a value, not an Error)`;
    }
    const head = `${thrown.name}: ${thrown.message}`;
    const frames = thrown.stack
      .split("\n")
      .filter((line) => /^\s+at /.test(line) && line.includes(driverUrl))
      .map((line) => `    ${line.trim().split(driverUrl).join(driverName)}`);
    return [head, ...frames].join("\n");
  };

  const host = window[handle];
  if (host === undefined || host === null) {
    return { error: `${where} is ${String(host)}: the build does not install its debug API` };
  }

  const kinds = new Map(outputs.map((output) => [output.id, output.kind]));
  const images = outputs.filter((output) => output.kind === "image").map((o) => JSON.stringify(o.id));
  const own = {
    async screenshot(outputId) {
      const kind = kinds.get(outputId);
      const call = `api.screenshot(${JSON.stringify(outputId)})`;
      if (kind === undefined) {
        const declared = images.length ? `its image outputs are ${images.join(", ")}` : "it declares no image output";
        throw new Error(`${call}: this script declares no output ${JSON.stringify(outputId)}; ${declared}`);
      }
      if (kind !== "image") {
        throw new Error(`${call}: ${JSON.stringify(outputId)} is a ${kind} output, recorded across the whole drive; screenshot() takes an image output`);
      }
      await window[screenshotBinding](outputId);
    },
    async call(op, ...args) {
      const target = window[handle];
      if (target === undefined || target === null || typeof target[op] !== "function") {
        const found = target === undefined || target === null ? `${where} is ${String(target)}` : `it is ${describe(target[op])}`;
        throw new Error(`api.call(${JSON.stringify(op)}): ${where}.${op} is not a function (${found})`);
      }
      return await target[op](...args);
    },
    settle(ms) {
      return new Promise((resolve) => setTimeout(resolve, ms));
    },
  };
  // Looked up on every access, so a build that replaces its handle (on reset, say) is followed.
  const api = new Proxy(own, {
    get(_, prop) {
      if (Object.hasOwn(own, prop)) return own[prop];
      const target = window[handle];
      const value = target === undefined || target === null ? undefined : target[prop];
      return typeof value === "function" ? value.bind(target) : value;
    },
    has(_, prop) {
      const target = window[handle];
      return Object.hasOwn(own, prop) || (target !== undefined && target !== null && prop in Object(target));
    },
  });

  let module;
  try {
    module = await import(driverUrl);
  } catch (thrown) {
    return { error: `could not import the driver ${driverName}: ${describeThrown(thrown)}` };
  }
  if (!("default" in module)) {
    return { error: `${driverName} has no default export; expected export default async (api) => ({ verdicts, notes })` };
  }
  if (typeof module.default !== "function") {
    return { error: `the default export of ${driverName} is ${describe(module.default)}, not a function` };
  }

  let result;
  try {
    result = await module.default(api);
  } catch (thrown) {
    return { error: `the driver threw ${describeThrown(thrown)}` };
  }

  if (result === null || typeof result !== "object" || Array.isArray(result)) {
    return { error: `the driver returned ${describe(result)}; expected an object { verdicts, notes }` };
  }
  const { verdicts, notes } = result;
  if (notes !== undefined && notes !== null && typeof notes !== "string") {
    return { error: `the driver's notes is ${describe(notes)}; expected a string` };
  }
  const shown = typeof notes === "string" ? notes : "";
  if (verdicts === null || typeof verdicts !== "object" || Array.isArray(verdicts)) {
    return { error: `the driver's verdicts is ${describe(verdicts)}; expected an object mapping verdict ids to true, false or null`, notes: shown };
  }
  for (const [id, verdict] of Object.entries(verdicts)) {
    if (verdict !== true && verdict !== false && verdict !== null) {
      return { error: `the driver's verdicts[${JSON.stringify(id)}] is ${describe(verdict)}; expected true (pass), false (fail) or null (precondition unmet)`, notes: shown };
    }
  }
  return { verdicts: { ...verdicts }, notes: shown };
}
