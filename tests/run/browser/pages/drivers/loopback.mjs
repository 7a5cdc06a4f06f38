// Tries to leave the machine by fetch and by WebSocket; only the loopback server may answer.
const fails = async (url) => {
  try {
    await fetch(url);
    return false;
  } catch {
    return true;
  }
};

const socketRefused = (url) =>
  new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.onmessage = () => resolve(false);
    socket.onclose = (event) => resolve(event.code === 1008);
  });

export default async () => {
  const local = await fetch("/game.html");
  return {
    verdicts: {
      "blocked.name": await fails("http://example.com/"),
      "blocked.address": await fails("http://10.0.0.1/"),
      "blocked.socket": await socketRefused("ws://10.0.0.1/"),
      local: local.ok,
    },
  };
};
