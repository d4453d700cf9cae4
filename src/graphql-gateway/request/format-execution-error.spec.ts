import { Logger } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import { ClientDisconnected } from '../../common/cancellation';
import { formatExecutionError } from './execute-operation';

describe('formatExecutionError', () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers a request cancelled because its client left without logging a failure', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const error = new GraphQLError('client disconnected', {
      path: ['getOrders'],
      originalError: new ClientDisconnected(),
    });
    expect(formatExecutionError(error)).toEqual({
      message: 'The client closed the connection',
      path: ['getOrders'],
      extensions: { code: 'CLIENT_CLOSED_REQUEST' },
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it('masks and logs an error that is none of ours', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const error = new GraphQLError('boom', {
      path: ['getOrders'],
      originalError: new Error('boom'),
    });
    expect(formatExecutionError(error).extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
    expect(logged).toHaveBeenCalledTimes(1);
  });
});
