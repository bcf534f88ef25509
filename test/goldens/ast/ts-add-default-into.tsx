import React, { useState, useEffect } from "react";

interface Props {
  label: string;
}

export function Counter({ label }: Props) {
  const [count, setCount] = useState(0);
  return (
    <button onClick={() => setCount(count + 1)}>
      {label}: {count}
    </button>
  );
}

export const Badge = (props: Props) => <span>{props.label}</span>;
