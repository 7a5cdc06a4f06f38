/*
 * Init script of every page a validation script drives: logs each Web Audio source the page
 * starts, for `api.audio()`. It runs before the build's own scripts, and the log is read
 * through a function whose name is drawn per page (__READER__), never a fixed global.
 */
(() => {
  const LIMIT = 10000;
  const started = [];
  const Source = window.AudioScheduledSourceNode;
  if (Source === undefined) return;
  const start = Source.prototype.start;
  Source.prototype.start = function (...args) {
    const result = start.apply(this, args);
    if (started.length < LIMIT) {
      const entry = { type: this.constructor.name, when: Number(args[0] ?? 0), at: performance.now() };
      if (window.OscillatorNode && this instanceof OscillatorNode) {
        entry.wave = this.type;
        entry.frequency = this.frequency.value;
      }
      if (window.AudioBufferSourceNode && this instanceof AudioBufferSourceNode && this.buffer) {
        entry.duration = this.buffer.duration;
      }
      started.push(entry);
    }
    return result;
  };
  Object.defineProperty(window, "__READER__", { value: () => started.map((entry) => ({ ...entry })) });
})();
