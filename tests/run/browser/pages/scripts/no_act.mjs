export default { id: "scoring", arrange() {} };
