// Registers a service worker that would see every request of its scope (and, where one runs,
// fetches the old reporter prefix from inside it). Reports what registration did and what the
// worker saw.
(() => {
  const report = { supported: "serviceWorker" in navigator, registered: null, seen: [] };
  if (report.supported) {
    navigator.serviceWorker.register("sw-worker.js").then(
      () => { report.registered = "registered"; },
      (error) => { report.registered = `refused: ${error.name}`; },
    );
    navigator.serviceWorker.addEventListener("message", (event) => { report.seen = event.data; });
    setInterval(() => navigator.serviceWorker.controller?.postMessage("report"), 20);
  } else {
    report.registered = "no navigator.serviceWorker";
  }
  window.__report = () => ({ ...report, controlled: Boolean(navigator.serviceWorker?.controller) });
})();
