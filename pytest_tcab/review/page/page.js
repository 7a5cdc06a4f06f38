// The review page's script: what is still missing and the overall rating, kept live; a save sent
// with the session's token (read from this page, which the build's frame cannot reach), and its
// answer shown: the recomputed figures, or the reviewer's mistakes, each naming its field.
"use strict";

(function () {
  const form = document.getElementById("review-form");
  const block = document.getElementById("tcab-page");
  if (!form || !block) return; // the worklist has nothing to keep live
  const data = JSON.parse(block.textContent);
  const token = document.querySelector('meta[name="tcab-token"]').content;
  const tiers = data.tiers;

  function chosen(name) {
    const checked = form.querySelector(`input[type=radio][name="${CSS.escape(name)}"]:checked`);
    return checked ? checked.value : "";
  }

  function text(name) {
    const field = form.elements.namedItem(name);
    return field ? field.value : "";
  }

  function fields() {
    const out = {};
    for (const point of data.points) {
      out[`review.${point.id}`] = chosen(`review.${point.id}`);
      out[`note.${point.id}`] = text(`note.${point.id}`);
    }
    for (const domain of data.domains) out[`rating.${domain}`] = chosen(`rating.${domain}`);
    out.body = text("body");
    return out;
  }

  function element(tag, className, content) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined) node.textContent = content;
    return node;
  }

  function refresh() {
    const now = fields();
    const missing = [];
    for (const point of data.points) {
      const box = form.querySelector(`.point[data-point="${CSS.escape(point.id)}"]`);
      const value = now[`review.${point.id}`];
      const overridden = point.automated && value && value !== point.automated;
      box.classList.toggle("overridden", Boolean(overridden));
      box.classList.toggle("decided", Boolean(value));
      box.classList.toggle("needs-note", Boolean(overridden && !now[`note.${point.id}`].trim()));
      if (!value && !point.excluded) missing.push(`review.${point.id} (${point.title})`);
    }
    const rated = [];
    for (const domain of data.domains) {
      const tier = now[`rating.${domain}`];
      if (tier) rated.push(tier); else missing.push(`rating.${domain}`);
    }
    const overall = document.getElementById("overall");
    const worst = rated.length ? rated.reduce((a, b) => (tiers.indexOf(a) >= tiers.indexOf(b) ? a : b)) : null;
    overall.textContent = worst === null ? "Overall: not rated yet (the worst of the domains' ratings)."
      : rated.length < data.domains.length ? `Overall so far: ${worst} (the worst of the domains rated; `
        + `${data.domains.length - rated.length} still unrated).`
      : `Overall: ${worst} (the worst of the domains' ratings).`;
    overall.dataset.overall = worst && rated.length === data.domains.length ? worst : "";
    const box = document.getElementById("missing");
    box.replaceChildren();
    if (!now.body.trim()) missing.push("body");
    if (missing.length === 0) {
      box.append(element("p", "complete", "Complete: every point has a verdict and every domain a rating."));
    } else {
      box.append(element("p", "incomplete", `Still missing before the review is complete (${missing.length}); `
        + "saved now, it is a draft that counts nowhere:"));
      const list = element("ul");
      for (const entry of missing) list.append(element("li", "", entry));
      box.append(list);
    }
  }

  function percent(score) {
    return score && score.value !== null && score.value !== undefined
      ? `${score.earned} of ${score.available} points (${Math.round(score.value * 1000) / 10}%)` : "none";
  }

  function showFigures(figures) {
    const box = document.getElementById("figures");
    box.replaceChildren();
    if (!figures) return;
    const run = figures.run || {};
    const mine = figures.mine;
    const list = element("dl");
    const add = (term, value, key) => {
      const dd = element("dd", "", value);
      if (key) dd.dataset.figure = key;
      list.append(element("dt", "", term), dd);
    };
    if (mine) {
      add("your review", mine.stale ? "stale (the build changed): counts nowhere"
        : mine.complete ? "complete" : "a draft: counts nowhere until complete", "mine-state");
      add("your score", percent(mine.score), "mine-score");
      add("your overall rating", mine.overall || "not rated", "mine-overall");
      const overrides = (mine.overrides || []).map((o) => `${o.id}: ${o.automated} → ${o.reviewed} (${o.note})`);
      add("your overrides", overrides.join("; ") || "none", "mine-overrides");
      if (mine.problems && mine.problems.length) add("problems in your file", mine.problems.join("; "), "mine-problems");
    }
    add("the run's reviewed score", `${percent(run.score)}, from ${run.reviewed || 0} complete review(s) of `
      + `${run.reviews_total || 0}`, "run-score");
    add("the run's rating", run.rating || "none yet", "run-rating");
    box.append(element("h3", "", "Figures"), list);
  }

  function showMessages(kind, lines) {
    const box = document.getElementById("messages");
    box.replaceChildren();
    box.className = kind;
    const list = element("ul");
    for (const line of lines) list.append(element("li", "", line));
    box.append(list);
  }

  async function save(event) {
    event.preventDefault();
    const button = document.getElementById("save");
    button.disabled = true;
    try {
      const answer = await fetch(`/api/save/${encodeURIComponent(data.run)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Tcab-Token": token },
        body: JSON.stringify({ fields: fields(), revision: text("revision") }),
        credentials: "omit",
      });
      const result = await answer.json();
      if (!answer.ok) {
        showMessages("errors", result.errors || [`the save was refused (${answer.status})`]);
        return;
      }
      const revision = result.revision;
      showMessages("saved", [revision ? `Saved (${revision.created ? "first review" : "revised"}: `
        + `${revision.note}).` : "Nothing changed since the last save: no revision written."]);
      showFigures(result.figures);
      form.elements.namedItem("revision").value = "";
    } catch (error) {
      showMessages("errors", [`the save did not reach the review server: ${error}`]);
    } finally {
      button.disabled = false;
    }
  }

  form.addEventListener("change", refresh);
  form.addEventListener("input", refresh);
  form.addEventListener("submit", save);
  refresh();
  showFigures(data.figures);
  document.documentElement.dataset.ready = "1";
})();
