import React, { useState } from "react";

interface Props {
  label: string;
}

export function Counter({ label }: Props) {
  const [clicks, setCount] = useState(0);
  return (
    <button onClick={() => setCount(clicks + 1)}>
      {label}: {clicks}
    </button>
  );
}

export const Badge = (props: Props) => <span>{props.label}</span>;
