// Has the page try to leave the machine by fetch and by WebSocket; only the loopback server may answer.
export default async (api) => ({
  verdicts: {
    "blocked.name": await api.fails("http://example.com/"),
    "blocked.address": await api.fails("http://10.0.0.1/"),
    "blocked.socket": await api.socketRefused("ws://10.0.0.1/"),
    local: await api.fetchOk("/game.html"),
  },
});
