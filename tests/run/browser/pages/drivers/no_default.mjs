export const verdicts = { scoring: true };
