/**
 * The order of `npm test`'s files: vitest's own, except that the node project's longest files
 * start first (test/vitest.config.ts runs two node files at a time): the operator command's
 * beside the deploy script's, then the README walkthroughs'. So no long file starts last
 * beside an idle slot, and the two `npm start`s of a fresh clone are a minute apart (the first
 * one writes .dev.vars).
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

const FIRST = ["test/node/operator.test.ts", "test/node/deploy.test.ts", "test/node/quickstart.test.ts"];

const rank = (spec: TestSpecification) => {
  const i = FIRST.findIndex((file) => spec.moduleId.endsWith(file));
  return i < 0 ? FIRST.length : i;
};

export default class NodeLongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // the node project's files, reordered, into the places its files had
    const node = sorted.filter((s) => s.project.name === "node");
    const reordered = [...node].sort((a, b) => rank(a) - rank(b));
    let next = 0;
    return sorted.map((s) => (s.project.name === "node" ? reordered[next++]! : s));
  }
}
