// drive(api, ttc), named export: pixel, probe and audio read back what the page did.
import { fresh } from "./_helpers.mjs";

export async function drive(api, ttc) {
  const check = ttc.checkOne("scoring");
  await fresh(api, "#ff8000");
  await api.settle(50);
  const pixel = await api.pixel(0.5, 0.5);
  check.expectEq("the canvas centre is orange", pixel, { r: 255, g: 128, b: 0 });
  const probe = await api.probe(["step", "setAutoStep", "teleport"]);
  check.expectEq("probe", probe, { version: "1.2.0", ops: { step: "function", setAutoStep: "function", teleport: "undefined" } });
  check.expectEq("no sound yet", (await api.audio()).length, 0);
  await api.call("beep", 660);
  const played = await api.audio();
  check.expectEq("one source started", played.length, 1);
  check.expectEq("an oscillator, connected, its context running", [played[0].type, played[0].connected, played[0].running],
    ["OscillatorNode", true, true]);
  await api.screenshot("still");
  return check.verdict();
}
