export default async () => ({ verdicts: ["scoring"], notes: "" });
