import { FC, useState } from 'react'

/* export function commentedOut() {} */
const template = `
export function notInTemplate() {}
`

export interface CardProps {
  title: string
  onEdit?: (id: string) => void
}

export type Mode = 'view' | 'edit'

export enum Color { Red, Green }

export const Card: FC<CardProps> = ({ title, onEdit }) => {
  const [open, setOpen] = useState(false)
  const handleClick = () => setOpen(!open)
  return <div onClick={handleClick}>{title}</div>
}

export default function App() {
  return <Card title="x" />
}

export class Store<T> extends Base {
  private items: T[] = []

  constructor(private readonly name: string) {
    super()
  }

  async load(id: string): Promise<T> {
    if (id) {
      return this.items[0]
    }
  }

  handle = (e: Event) => {
    console.log(e)
  }
}

namespace Utils {
  export function clamp(n: number) { return n }
}
