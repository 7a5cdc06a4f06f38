// Shared by the scripts beside it: what the page says it saw, carried out in the notes.
export const reportOf = (snap) => `page report: ${JSON.stringify(snap.report ?? null)}`;
