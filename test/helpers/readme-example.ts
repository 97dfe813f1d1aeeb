/** The TypeScript example of the README's "Use it in your project" section (its first ```ts block). */
export function readmeExample(readme: string): string {
  const section = readme.split('\n## Use it in your project\n')[1]?.split('\n## ')[0];
  const block = section?.split('```ts\n')[1]?.split('```')[0];
  if (!block) throw new Error('README.md has no ```ts block under "## Use it in your project"');
  return block;
}
