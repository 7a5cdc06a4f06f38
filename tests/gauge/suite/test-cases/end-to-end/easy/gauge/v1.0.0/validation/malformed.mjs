// malformed: a driver must return { verdicts, notes }.
export default async () => 'yes';
