// The service worker of serviceworker.js: remembers every URL it intercepts.
const seen = [];
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  seen.push(event.request.url);
  event.respondWith(fetch(event.request));
});
self.addEventListener("message", (event) => event.source.postMessage(seen.slice(-200)));
