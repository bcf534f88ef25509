import React, { useState } from "react";

interface CounterProps {
  label: string;
}

export function Counter({ label }: CounterProps) {
  const [count, setCount] = useState(0);
  return (
    <button onClick={() => setCount(count + 1)}>
      {label}: {count}
    </button>
  );
}

export const Badge = (props: CounterProps) => <span>{props.label}</span>;
