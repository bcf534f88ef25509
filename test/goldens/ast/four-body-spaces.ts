export class Queue {
    private items: number[] = [];

    push(n: number): void {
        if (n < 0) {
            throw new Error("negative");
        }
        this.items.push(n);
    }
}
