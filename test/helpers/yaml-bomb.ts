/**
 * A "billion laughs" YAML document: each level's anchor is a list of nine aliases of the level before, so a few
 * lines would become 9^levels values. The first alias (`*a`) is on line 2, right after `<indent><key>1: &b [`.
 */
export function yamlBomb(key = 'bomb', levels = 9, indent = ''): string {
  const names = 'abcdefghijklmnop';
  const lines = [`${indent}${key}0: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]`];
  for (let i = 1; i < levels; i++)
    lines.push(
      `${indent}${key}${i}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(', ')}]`,
    );
  return lines.join('\n') + '\n';
}
