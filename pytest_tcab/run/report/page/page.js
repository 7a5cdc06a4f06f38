// index.html's behaviour: sortable tables, filters kept in the URL fragment, runs that open in
// place to their items (media made only when a row opens), clips that play on click.
// Everything a run wrote reaches the page as text (textContent, setAttribute): never as markup.
(function () {
  "use strict";
  var FILTERS = ["case", "harness", "model", "label", "status", "item", "run"];
  var data = JSON.parse(document.getElementById("tcab-data").textContent);
  var details = data.details || {};

  // -- sorting -------------------------------------------------------------------------------
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, column) {
      th.tabIndex = 0;
      function sort() {
        var down = th.getAttribute("aria-sort") === "ascending";
        table.querySelectorAll("thead th").forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", down ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.filter.call(body.rows, function (row) { return !row.classList.contains("details"); });
        rows.sort(function (a, b) {
          var x = a.cells[column].getAttribute("data-sort") || "", y = b.cells[column].getAttribute("data-sort") || "";
          var nx = parseFloat(x), ny = parseFloat(y);
          var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return down ? -order : order;
        });
        rows.forEach(function (row) {
          body.appendChild(row);
          var opened = row.nextDetails;
          if (opened) body.appendChild(opened);
        });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); } });
    });
  });

  // -- filters in the fragment ---------------------------------------------------------------
  function current() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    var chosen = {};
    FILTERS.forEach(function (name) { var value = params.get(name); if (value) chosen[name] = value; });
    return chosen;
  }

  function write(chosen) {
    var params = new URLSearchParams();
    FILTERS.forEach(function (name) { if (chosen[name]) params.set(name, chosen[name]); });
    var text = params.toString();
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
    apply();
  }

  function matchesGroup(element, chosen) {
    return ["case", "harness", "model"].every(function (name) {
      var value = element.getAttribute("data-" + name);
      return !chosen[name] || value === null || value === chosen[name];
    });
  }

  function matchesRun(name, chosen) {
    var row = details[name];
    if (!row) return !chosen.run && !chosen.label && !chosen.status && !chosen.item;
    if (chosen.run && chosen.run !== name) return false;
    if (chosen.status && chosen.status !== row.status) return false;
    if (chosen.label && (row.labels || []).indexOf(chosen.label) < 0) return false;
    if (chosen.item && !(row.items && Object.prototype.hasOwnProperty.call(row.items, chosen.item))) return false;
    return true;
  }

  function apply() {
    var chosen = current();
    document.querySelectorAll("select[data-filter]").forEach(function (select) {
      select.value = chosen[select.getAttribute("data-filter")] || "";
    });
    document.querySelectorAll("[data-group]").forEach(function (element) {
      // An attribute, not the property: SVG elements (the chart's rows) have no `hidden` property.
      element.toggleAttribute("hidden", !matchesGroup(element, chosen));
    });
    document.querySelectorAll("[data-point]").forEach(function (point) {
      point.classList.toggle("dimmed", !matchesRun(point.getAttribute("data-point"), chosen));
    });
    var shown = 0, total = 0;
    document.querySelectorAll("#runs tbody tr[data-run]").forEach(function (row) {
      var name = row.getAttribute("data-run");
      var visible = matchesGroup(row, chosen) && matchesRun(name, chosen);
      row.hidden = !visible;
      if (row.nextDetails) row.nextDetails.hidden = !visible;
      total += 1; shown += visible ? 1 : 0;
    });
    var note = document.getElementById("filter-note");
    var words = Object.keys(chosen).map(function (name) { return name + " " + chosen[name]; });
    note.textContent = words.length ? "showing " + shown + " of " + total + " runs: " + words.join(", ") : "";
    if (chosen.run) {
      var row = document.querySelector('#runs tr[data-run="' + CSS.escape(chosen.run) + '"]');
      if (row && !row.nextDetails) toggle(row);
    }
  }

  document.querySelectorAll("select[data-filter]").forEach(function (select) {
    select.addEventListener("change", function () {
      var chosen = current();
      chosen[select.getAttribute("data-filter")] = select.value;
      write(chosen);
    });
  });
  document.getElementById("clear-filters").addEventListener("click", function () { write({}); });
  window.addEventListener("hashchange", apply);

  // -- runs that open in place ---------------------------------------------------------------
  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined && text !== null) made.textContent = String(text);
    return made;
  }

  function thumbnail(shown) {
    var figure = element("figure", "thumb");
    figure.appendChild(element("figcaption", null, shown.label));
    if (shown.kind === "video") {
      var play = element("button", "clip");
      play.type = "button";
      play.setAttribute("aria-label", "play " + shown.label);
      if (shown.poster) {
        var poster = element("img");
        poster.loading = "lazy"; poster.alt = ""; poster.src = shown.poster;
        play.appendChild(poster);
      }
      play.appendChild(element("span", "play", "\u25B6 play"));
      play.addEventListener("click", function () {
        var video = element("video");
        video.src = shown.url; video.controls = true; video.muted = true; video.loop = true; video.autoplay = true;
        if (shown.poster) video.poster = shown.poster;
        play.replaceWith(video);
        video.play().catch(function () {});
      });
      figure.appendChild(play);
    } else {
      var link = element("a");
      link.href = shown.url;
      var image = element("img");
      image.loading = "lazy"; image.alt = shown.label; image.src = shown.url;
      link.appendChild(image);
      figure.appendChild(link);
    }
    return figure;
  }

  function itemList(name) {
    var row = details[name] || {};
    var list = element("div", "items");
    var items = row.items || {};
    Object.keys(items).forEach(function (key) {
      var item = items[key];
      var line = element("div", "item outcome-" + item.outcome);
      var head = element("div", "item-head");
      head.appendChild(element("span", "badge outcome-" + item.outcome, item.outcome));
      head.appendChild(element("code", null, key));
      if (item.fuel !== undefined) head.appendChild(element("span", "fuel", Number(item.fuel).toLocaleString("en") + " fuel"));
      if (item.message) head.appendChild(element("span", "message", item.message));
      line.appendChild(head);
      if (item.media && item.media.length) {
        var thumbs = element("div", "thumbs");
        item.media.forEach(function (shown) { thumbs.appendChild(thumbnail(shown)); });
        line.appendChild(thumbs);
      }
      list.appendChild(line);
    });
    if (!Object.keys(items).length) list.appendChild(element("p", "note", "no items"));
    return list;
  }

  function toggle(row) {
    var button = row.querySelector("button.open");
    if (row.nextDetails) {
      row.nextDetails.remove();
      row.nextDetails = null;
      button.setAttribute("aria-expanded", "false");
      return;
    }
    var opened = element("tr", "details");
    var cell = element("td");
    cell.colSpan = row.cells.length;
    cell.appendChild(itemList(row.getAttribute("data-run")));
    opened.appendChild(cell);
    row.after(opened);
    row.nextDetails = opened;
    button.setAttribute("aria-expanded", "true");
  }

  document.querySelectorAll("#runs button.open").forEach(function (button) {
    button.addEventListener("click", function () { toggle(button.closest("tr")); });
  });
  // The clips the page itself shows (what changed): posters that play on click.
  document.querySelectorAll("[data-clip]").forEach(function (holder) {
    var shown = JSON.parse(holder.getAttribute("data-clip"));
    holder.replaceWith(thumbnail(shown));
  });

  apply();
  document.documentElement.setAttribute("data-ready-ms", String(performance.now()));
  document.documentElement.setAttribute("data-ready", "true");
})();
