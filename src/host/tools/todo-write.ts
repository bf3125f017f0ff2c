/**
 * `todo_write`: replaces the agent's whole todo list by appending `todo/write {todos}` to its session (the last one
 * in the log is the list). An agent-less call, or one outside an open turn, is an error.
 * @module
 */
import type { TodoItem, Tool } from '../types.js';
import { BUILTIN_TOOL_ANNOTATIONS } from '../../compile/index.js';

/** The `todo_write` tool: not destructive, idempotent, closed-world; needs an agent. */
export const todoWriteTool: Tool<{ todos: TodoItem[] }> = {
  name: 'todo_write',
  description: 'Replace your todo list (the whole list each time). Each item has content and a status.',
  parameters: {
    type: 'object',
    properties: {
      todos: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            content: { type: 'string', minLength: 1 },
            status: { enum: ['pending', 'in_progress', 'completed'] },
          },
          required: ['content', 'status'],
          additionalProperties: false,
        },
      },
    },
    required: ['todos'],
    additionalProperties: false,
  },
  // It changes only the session's own todo list, never the workspace; still not read-only (it writes state).
  annotations: BUILTIN_TOOL_ANNOTATIONS.todo_write,
  async execute(args, context) {
    const session = context.agent?.session;
    if (!session)
      return { content: 'Error: todo_write needs an agent (its list lives in the session)', isError: true };
    if (!session.turnOpen) return { content: 'Error: todo_write needs an open turn', isError: true };
    const todos = args.todos.map((todo) => ({ content: todo.content, status: todo.status }));
    await session.append('todo/write', { todos });
    const done = todos.filter((todo) => todo.status === 'completed').length;
    return { content: `Todo list updated: ${todos.length} items, ${done} completed` };
  },
};
