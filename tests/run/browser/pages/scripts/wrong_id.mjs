export default () => ({ id: "score", arrange() {}, act() {} });
