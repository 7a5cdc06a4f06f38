export default async () => "pass";
